import CALSA

#if canImport(Glibc)
import Glibc
#endif

/// An ALSA PCM opened for capture at 48 kHz, mono, 16-bit, read as `Float` blocks.
///
/// The device is asked for exactly the analysis format (48 kHz mono S16_LE, interleaved)
/// with soft resampling allowed, so when it is a `plug` PCM (`default`, `plughw:…`, most
/// named ones) ALSA converts rate, channels and format itself; a raw `hw:` device that
/// cannot do 48 kHz mono fails with `device_error`. Reads block until a block is there.
///
/// Not `Sendable`: an `snd_pcm_t` is not safe to use from two threads at once, and one
/// capture belongs to one loop. The PCM is closed when the object goes away.
public final class AudioCaptureDevice {
    /// The rate every block is delivered at.
    public static let sampleRate = 48_000
    /// What is asked of ALSA as the buffer length: long enough to ride out a busy moment,
    /// short enough that the meter follows the voice.
    public static let latencyMicroseconds: UInt32 = 100_000

    /// The PCM name it was opened with (`default`, `hw:1,0`, `fixture`, …).
    public let name: String
    /// How many overruns (samples lost because reading fell behind) were recovered from.
    public private(set) var overruns = 0

    private let pcm: OpaquePointer
    private var samples: [Int16] = []

    /// Opens the PCM `name` for capture and configures it for 48 kHz mono S16_LE.
    ///
    /// - Throws: `CaptureError.deviceNotFound` when no such PCM (or card) exists,
    ///   `.deviceBusy` when another program holds it, `.deviceError` for anything else
    ///   (including a device that cannot record 48 kHz mono). Each lists the available PCMs.
    public init(name: String) throws(CaptureError) {
        Self.silenceLibraryMessages()
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, 0)
        guard opened >= 0, let handle else {
            let detail = Self.describe(opened)
            switch -opened {
            case ENOENT, ENODEV, ENXIO:
                throw .deviceNotFound(device: name, detail: detail, available: Self.availableDevices())
            case EBUSY, EAGAIN:
                throw .deviceBusy(device: name, detail: detail, available: Self.availableDevices())
            default:
                throw .deviceError(device: name, detail: "cannot open it: \(detail)", available: Self.availableDevices())
            }
        }
        let configured = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
            1, UInt32(Self.sampleRate), 1, Self.latencyMicroseconds)
        guard configured >= 0 else {
            snd_pcm_close(handle)
            throw .deviceError(device: name, detail: "cannot record 48 kHz mono 16-bit: \(Self.describe(configured))",
                               available: Self.availableDevices())
        }
        self.name = name
        pcm = handle
    }

    deinit {
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
    }

    /// Reads the next `frames` samples into `block` (replacing its contents), in −1…1.
    ///
    /// Blocks until they have arrived. An overrun or a suspend is recovered from and
    /// counted in `overruns` (the samples lost then are simply missing from the recording);
    /// a short read after a signal leaves `block` shorter than asked, possibly empty.
    ///
    /// - Throws: `CaptureError.deviceError` when the device fails and cannot be recovered
    ///   (unplugged, driver error).
    public func read(into block: inout [Float], frames: Int = 960) throws(CaptureError) {
        if samples.count < frames { samples = [Int16](repeating: 0, count: frames) }
        var failures = 0
        while true {
            if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED {
                // snd_pcm_set_params starts capture only once a whole buffer is asked for;
                // blocks are shorter, so start it explicitly (again after each recovery).
                let started = snd_pcm_start(pcm)
                if started < 0 { try recover(from: Int(started), failures: &failures) }
            }
            let got = samples.withUnsafeMutableBytes { snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(frames)) }
            if got >= 0 {
                block.removeAll(keepingCapacity: true)
                for index in 0..<got { block.append(Float(samples[index]) / 32768) }
                return
            }
            try recover(from: got, failures: &failures)
        }
    }

    /// `snd_pcm_recover` for overruns (`EPIPE`), suspends (`ESTRPIPE`) and signals
    /// (`EINTR`); anything else, or ten failures in a row, is the device's end.
    private func recover(from error: Int, failures: inout Int) throws(CaptureError) {
        let code = Int32(truncatingIfNeeded: error)
        failures += 1
        guard failures <= 10, -code == EPIPE || -code == ESTRPIPE || -code == EINTR || -code == EAGAIN else {
            throw .deviceError(device: name, detail: "reading failed: \(Self.describe(code))", available: Self.availableDevices())
        }
        if -code == EAGAIN { return }
        if -code == EPIPE { overruns += 1 }
        let recovered = snd_pcm_recover(pcm, code, 1)
        guard recovered >= 0 else {
            throw .deviceError(device: name, detail: "cannot recover from \(Self.describe(code)): \(Self.describe(recovered))",
                               available: Self.availableDevices())
        }
    }

    /// ALSA's text for a negative error code.
    static func describe(_ code: Int32) -> String {
        snd_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// alsa-lib prints its own diagnostics on stderr; every failure is reported here instead.
    static func silenceLibraryMessages() {
        tilawa_alsa_silence_errors()
    }
}
