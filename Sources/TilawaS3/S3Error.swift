/// An answer from the object store that is not success, or a request that could not be made:
/// the store's own code (`NoSuchKey`, `SignatureDoesNotMatch`, …) or ours, its message, and the
/// HTTP status when there was one.
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    public let status: Int?

    public init(code: String, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String {
        "\(code): \(message)" + (status.map { " (HTTP \($0))" } ?? "")
    }

    /// True for an object or bucket that is not there.
    public var isNotFound: Bool { status == 404 || code == "NoSuchKey" || code == "NoSuchBucket" || code == "NoSuchUpload" }
}
