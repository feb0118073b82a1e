import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaAudio
import TilawaCore

@Suite("Audio processor over the fixtures", .heavy)
struct AudioProcessorTests {
    let processor = AudioProcessor()

    @Test("The manifest lists every kind of fixture the contract names")
    func manifestIsComplete() {
        #expect(Fixtures.all.count >= 25)
        #expect(!Fixtures.accepted.isEmpty)
        #expect(Set(Fixtures.broken.flatMap(\.reasons)) == ["empty", "unreadable", "unsupported_format"])
        for fixture in Fixtures.all {
            #expect(FileManager.default.fileExists(atPath: fixture.path), "missing \(fixture.file)")
        }
    }

    @Test("Decodable fixtures give the manifest's verdict, reasons, warnings, duration and loudness",
          arguments: Fixtures.decodable)
    func analysis(of fixture: Fixture) throws {
        let result = try processor.process(path: fixture.path)
        #expect(result.verdict.isAccepted == fixture.isAccepted)
        #expect(result.verdict.rejections.map(\.code) == fixture.reasons)
        #expect(result.verdict.warnings.map(\.code) == fixture.warnings)
        if let expected = fixture.durationSeconds {
            #expect(abs(result.analysis.durationSeconds - expected) <= fixture.durationTolerance,
                    "duration \(result.analysis.durationSeconds) vs \(expected)")
        }
        if let expected = fixture.loudnessLUFS {
            let measured = try #require(result.analysis.loudnessLUFS)
            #expect(abs(measured - expected) <= 0.2, "loudness \(measured) vs \(expected)")
        } else {
            #expect(result.analysis.loudnessLUFS == nil)
        }
        if let rate = fixture.sampleRate { #expect(result.source.sampleRate == rate) }
        if let channels = fixture.channels { #expect(result.source.channels == channels) }
        #expect(result.analysis.speechRatio >= 0 && result.analysis.speechRatio <= 1)
        #expect(result.analysis.speechSeconds <= result.analysis.durationSeconds + 0.02)
    }

    @Test("Broken fixtures end as their reason code and leave no file behind", arguments: Fixtures.broken)
    func brokenFixture(_ fixture: Fixture) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let error = #expect(throws: AudioRejection.self) {
            try processor.process(path: fixture.path, encodeTo: scratch.path("out.opus"), policy: .always)
        }
        #expect(error.map { [$0.code] } == fixture.reasons)
        #expect(scratch.contents().isEmpty)
    }

    @Test("A rejected recording is not encoded and leaves nothing behind")
    func rejectedIsNotKept() throws {
        let fixture = try #require(Fixtures.named("digital_silence.wav"))
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let result = try processor.process(path: fixture.path, encodeTo: scratch.path("out.opus"))
        #expect(!result.verdict.isAccepted)
        #expect(result.encoded == nil)
        #expect(scratch.contents().isEmpty)
    }

    @Test("Waveform peaks have one min/max pair per 960 samples")
    func waveformLength() throws {
        let fixture = try #require(Fixtures.named("speech_mono_s16_48k.wav"))
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let judged = try processor.process(path: fixture.path)
        let waveform = try processor.encode(path: fixture.path, to: scratch.path("out.opus"), analysis: judged.analysis).waveform
        let samples = Int((judged.analysis.durationSeconds * 48_000).rounded())
        #expect(waveform.length == (samples + 959) / 960)
        #expect(waveform.data.count == 2 * waveform.length)
        let json = try JSONSerialization.jsonObject(with: waveform.jsonData()) as? [String: Any]
        #expect(json?["version"] as? Int == 2)
        #expect(json?["bits"] as? Int == 8)
        #expect(json?["channels"] as? Int == 1)
        #expect(json?["samples_per_pixel"] as? Int == 960)
        #expect((json?["data"] as? [Int])?.count == 2 * waveform.length)
        // Speech reaches well above the noise floor somewhere, and every pair is ordered.
        #expect(waveform.data.max()! > 20)
        for pixel in 0..<waveform.length {
            #expect(waveform.data[2 * pixel] <= waveform.data[2 * pixel + 1])
        }
    }

    @Test("Rates from 8 to 192 kHz and up to 8 channels decode to the exact duration", arguments: [
        (rate: 8_000, channels: 1), (rate: 11_025, channels: 2), (rate: 96_000, channels: 1),
        (rate: 192_000, channels: 2), (rate: 48_000, channels: 8),
    ])
    func rates(_ format: (rate: Int, channels: Int)) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("tone.wav")
        try SyntheticWAV.tone16(seconds: 2, sampleRate: format.rate, channels: format.channels).write(to: URL(fileURLWithPath: path))
        let result = try processor.process(path: path)
        #expect(result.source.sampleRate == format.rate)
        #expect(result.source.channels == format.channels)
        #expect(abs(result.analysis.durationSeconds - 2) <= 0.001)
        // The same tone in every channel: the mean downmix keeps its level (−6.02 dBFS peak).
        let peak = try #require(result.analysis.peakDBFS)
        #expect(abs(peak - 20 * log10(0.5)) < 0.2)
    }

    @Test("A float recording with a NaN or an infinity (or a double past Float's range) is unreadable, not a crash", arguments: [
        (value: Double.nan, double: false), (value: Double.infinity, double: false), (value: -Double.infinity, double: true),
        (value: 1e300, double: true),
    ])
    func nonFiniteSamples(_ damage: (value: Double, double: Bool)) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("damaged.wav")
        try SyntheticWAV.floatTone(seconds: 3, damage: damage.value, at: 70_000, double: damage.double)
            .write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: AudioRejection.self) {
            try processor.process(path: path, encodeTo: scratch.path("out.opus"), policy: .always)
        }
        #expect(error?.code == "unreadable")
        #expect(scratch.contents() == ["damaged.wav"], "no output, no temporary file")
        // The same file undamaged decodes: the rejection is about the value, not the format.
        try SyntheticWAV.floatTone(seconds: 3, damage: 0, at: 70_000, double: damage.double).write(to: URL(fileURLWithPath: path))
        #expect(try processor.process(path: path).analysis.durationSeconds == 3)
    }

    @Test("Decoding stops shortly past the maximum duration and reports the declared length")
    func tooLongStopsEarly() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // 16 minutes of 8 kHz 8-bit tone: 7.7 MB, longer than the 15-minute limit.
        let path = scratch.path("long.wav")
        try SyntheticWAV.tone(seconds: 16 * 60, sampleRate: 8_000).write(to: URL(fileURLWithPath: path))
        var limits = AudioLimits()
        limits.maxDurationSeconds = 15 * 60
        let result = try AudioProcessor(limits: limits).process(path: path)
        #expect(result.verdict.rejections.map(\.code).contains("too_long"))
        #expect(abs(result.analysis.durationSeconds - 960) < 0.01)
    }
}

/// Small WAV files built in memory for edge cases the fixtures do not cover.
enum SyntheticWAV {
    /// An 8-bit unsigned mono WAV of a 440 Hz tone at half scale.
    static func tone(seconds: Int, sampleRate: Int) -> Data {
        let count = seconds * sampleRate
        var data = header(dataBytes: count, sampleRate: sampleRate, bitsPerSample: 8)
        var samples = [UInt8](repeating: 128, count: count)
        for index in 0..<count {
            samples[index] = UInt8(128 + 64 * sin(2 * Double.pi * 440 * Double(index) / Double(sampleRate)))
        }
        data.append(contentsOf: samples)
        return data
    }

    /// A 16-bit WAV of a 440 Hz tone at half scale, the same in every channel.
    static func tone16(seconds: Int, sampleRate: Int, channels: Int) -> Data {
        let frames = seconds * sampleRate
        var data = header(dataBytes: frames * channels * 2, sampleRate: sampleRate, bitsPerSample: 16, channels: channels)
        var samples = [Int16](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            let value = Int16(16_384 * sin(2 * Double.pi * 440 * Double(frame) / Double(sampleRate)))
            for channel in 0..<channels { samples[frame * channels + channel] = value.littleEndian }
        }
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        return data
    }

    /// A float WAV (format 3) of a 440 Hz tone at half scale with `damage` written over
    /// sample `at`: 32-bit samples, or 64-bit ones when `double` is set.
    static func floatTone(seconds: Int, damage: Double, at position: Int, double: Bool) -> Data {
        let count = seconds * 48_000
        var data = header(dataBytes: count * (double ? 8 : 4), sampleRate: 48_000, bitsPerSample: double ? 64 : 32, format: 3)
        var values = (0..<count).map { 0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000) }
        values[position] = damage
        if double {
            values.map { $0.bitPattern.littleEndian }.withUnsafeBytes { data.append(contentsOf: $0) }
        } else {
            values.map { Float($0).bitPattern.littleEndian }.withUnsafeBytes { data.append(contentsOf: $0) }
        }
        return data
    }

    static func header(dataBytes: Int, sampleRate: Int, bitsPerSample: Int, channels: Int = 1, format: Int = 1) -> Data {
        var data = Data()
        func le32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) } }
        func le16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) } }
        let blockAlign = channels * bitsPerSample / 8
        data.append(contentsOf: Array("RIFF".utf8)); le32(36 + dataBytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); le32(16)
        le16(format); le16(channels); le32(sampleRate); le32(sampleRate * blockAlign); le16(blockAlign); le16(bitsPerSample)
        data.append(contentsOf: Array("data".utf8)); le32(dataBytes)
        return data
    }
}
