import COpusEnc
import Foundation

/// Encodes a mono 48 kHz Float32 stream to an Ogg Opus file with libopusenc.
///
/// Writes to the path it is given (callers pass a temporary name and rename on success;
/// see `AudioProcessor`). Owns libopusenc handles and is used from one thread at a time,
/// so it is not `Sendable`.
public final class OpusFileEncoder {
    private var encoder: OpaquePointer?
    private var comments: OpaquePointer?
    private let path: String

    /// Creates the file and configures the encoder.
    public init(path: String, settings: OpusEncoderSettings) throws(OpusEncoderError) {
        let settings = try settings.validated()
        self.path = path
        guard let comments = ope_comments_create() else { throw .encoder("cannot allocate comments") }
        self.comments = comments
        var error: Int32 = 0
        // Family 0: mono/stereo without a channel mapping table (RFC 7845 §5.1.1.1).
        guard let encoder = ope_encoder_create_file(path, comments, 48_000, 1, 0, &error) else {
            ope_comments_destroy(comments)
            self.comments = nil
            throw .encoder("cannot create \(path): \(String(cString: ope_strerror(error)))")
        }
        self.encoder = encoder
        let results = [
            tilawa_ope_set_bitrate(encoder, Int32(settings.bitrate)),
            tilawa_ope_set_vbr(encoder, 1),
            tilawa_ope_set_complexity(encoder, Int32(settings.complexity)),
            tilawa_ope_set_signal(encoder, settings.signal.ctlValue),
        ]
        if let failed = results.first(where: { $0 != OPE_OK }) {
            close()
            throw .encoder("cannot configure encoder: \(String(cString: ope_strerror(failed)))")
        }
    }

    deinit { close() }

    /// Encodes the next block.
    public func write(_ block: UnsafeBufferPointer<Float>) throws(OpusEncoderError) {
        guard let encoder else { throw .encoder("encoder already finished") }
        guard let base = block.baseAddress, !block.isEmpty else { return }
        let status = ope_encoder_write_float(encoder, base, Int32(block.count))
        guard status == OPE_OK else { throw .encoder("encoding failed: \(String(cString: ope_strerror(status)))") }
    }

    /// Flushes the last packets, writes the end-of-stream page and closes the file.
    public func finish() throws(OpusEncoderError) {
        guard let encoder else { throw .encoder("encoder already finished") }
        let status = ope_encoder_drain(encoder)
        close()
        guard status == OPE_OK else { throw .encoder("finishing failed: \(String(cString: ope_strerror(status)))") }
    }

    private func close() {
        if let encoder { ope_encoder_destroy(encoder) }
        if let comments { ope_comments_destroy(comments) }
        encoder = nil
        comments = nil
    }
}
