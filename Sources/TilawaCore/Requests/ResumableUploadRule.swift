/// How far a resumable upload has come: the bytes held durably and, once known, how many
/// there will be.
public struct UploadProgress: Sendable, Equatable {
    /// Bytes received and made durable; the only offset ever reported.
    public var offset: Int64
    /// The upload's whole length, once declared (tus at creation; the IETF draft by
    /// `Upload-Length` or by the request that says it completes the upload).
    public var length: Int64?

    public init(offset: Int64, length: Int64?) {
        self.offset = offset
        self.length = length
    }

    /// Every byte has arrived.
    public var isComplete: Bool { length == offset }
}

/// The rules of one append to a resumable upload, whichever protocol carries it (tus 1.0's
/// `PATCH`, the IETF draft's creation or `PATCH`): a plan before the body is read, the new
/// progress after it. Pure: the caller reads the body and makes its bytes durable.
public enum ResumableUploadRule {
    /// What an append request says of itself.
    public struct Append: Sendable, Equatable {
        /// The offset the client believes the upload is at (`Upload-Offset`).
        public var offset: Int64
        /// A length the request declares for the whole upload (`Upload-Length`), if any.
        public var declaredLength: Int64?
        /// The body's length (`Content-Length`), if framed by one.
        public var contentLength: Int64?
        /// The IETF draft's `Upload-Complete: ?1` (or `Upload-Incomplete: ?0`): this request's
        /// body ends the upload. Nil for tus, whose upload completes when the length is reached.
        public var completes: Bool?

        public init(offset: Int64, declaredLength: Int64? = nil, contentLength: Int64? = nil, completes: Bool? = nil) {
            self.offset = offset
            self.declaredLength = declaredLength
            self.contentLength = contentLength
            self.completes = completes
        }
    }

    /// Why an append is refused before (or after) its body.
    public enum Refusal: Error, Sendable, Equatable {
        /// The client's offset is not the upload's (409, with the real offset).
        case offsetMismatch(current: Int64)
        /// The request's length contradicts the one already known, or a completing body is
        /// not the declared length.
        case lengthMismatch(known: Int64)
        /// The upload would be larger than allowed (413).
        case tooLarge(limit: Int64)
        /// Every byte has arrived already.
        case alreadyComplete

        /// Stable reason code.
        public var code: String {
            switch self {
            case .offsetMismatch: "upload_offset_mismatch"
            case .lengthMismatch: "upload_length_mismatch"
            case .tooLarge: "payload_too_large"
            case .alreadyComplete: "upload_complete"
            }
        }
    }

    /// What the body of an accepted append may be.
    public struct Plan: Sendable, Equatable {
        /// Where the body's first byte goes.
        public var startOffset: Int64
        /// The most bytes the body may carry; one more is a refusal.
        public var maxBytes: Int64
        /// The upload's length as known once the request is accepted.
        public var length: Int64?
        /// Whether this body, once it has ended, completes the upload by declaration (IETF).
        public var completes: Bool

        public init(startOffset: Int64, maxBytes: Int64, length: Int64?, completes: Bool) {
            self.startOffset = startOffset
            self.maxBytes = maxBytes
            self.length = length
            self.completes = completes
        }
    }

    /// Decides, before reading a byte, whether `append` may go ahead on an upload at `progress`.
    public static func plan(_ append: Append, progress: UploadProgress, maxUploadBytes: Int64) -> Result<Plan, Refusal> {
        if progress.isComplete { return .failure(.alreadyComplete) }
        guard append.offset == progress.offset else { return .failure(.offsetMismatch(current: progress.offset)) }
        var length = progress.length
        if let declared = append.declaredLength {
            if let known = length, known != declared { return .failure(.lengthMismatch(known: known)) }
            length = declared
        }
        let completes = append.completes ?? false
        if completes, let body = append.contentLength {
            let implied = progress.offset + body
            if let known = length, known != implied { return .failure(.lengthMismatch(known: known)) }
            length = implied
        }
        if let length, length > maxUploadBytes { return .failure(.tooLarge(limit: maxUploadBytes)) }
        if let length, length < progress.offset { return .failure(.lengthMismatch(known: length)) }
        let room = (length ?? maxUploadBytes) - progress.offset
        if let body = append.contentLength, body > room {
            return .failure(length == nil ? .tooLarge(limit: maxUploadBytes) : .lengthMismatch(known: length ?? 0))
        }
        return .success(Plan(startOffset: progress.offset, maxBytes: room, length: length, completes: completes))
    }

    /// The progress after `received` bytes of an accepted plan were made durable; `bodyEnded`
    /// is false when the body was cut (what arrived is kept: the client resumes after it).
    /// A completing body that ended short of the declared length is a mismatch.
    public static func progress(after plan: Plan, received: Int64, bodyEnded: Bool) -> Result<UploadProgress, Refusal> {
        let offset = plan.startOffset + received
        guard plan.completes, bodyEnded else { return .success(UploadProgress(offset: offset, length: plan.length)) }
        if let length = plan.length, length != offset { return .failure(.lengthMismatch(known: length)) }
        return .success(UploadProgress(offset: offset, length: offset))
    }
}
