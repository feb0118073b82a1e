import CEBUR128

/// Integrated loudness (ITU-R BS.1770-4, EBU R128 gating) of a mono 48 kHz stream, by libebur128.
///
/// Owns a libebur128 state; used from one thread at a time, so not `Sendable`.
final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?

    init(sampleRate: Int) {
        state = ebur128_init(1, UInt(sampleRate), Int32(EBUR128_MODE_I.rawValue))
    }

    deinit { ebur128_destroy(&state) }

    func add(_ block: UnsafeBufferPointer<Float>) {
        guard let state, let base = block.baseAddress, !block.isEmpty else { return }
        _ = ebur128_add_frames_float(state, base, block.count)
    }

    /// LUFS, or `nil` when nothing passed the absolute gate (−70 LUFS): digital silence.
    var integratedLUFS: Double? {
        guard let state else { return nil }
        var value = 0.0
        guard ebur128_loudness_global(state, &value) == EBUR128_SUCCESS.rawValue, value.isFinite else { return nil }
        return value
    }
}
