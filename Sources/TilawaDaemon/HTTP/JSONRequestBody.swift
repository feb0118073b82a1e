import Foundation
import Hummingbird
import NIOCore

/// A request's JSON body as `Request.decodeJSONBody` read it: the value, and the bytes it came
/// as (an `Idempotency-Key` compares those, `OperatorIdempotency`).
struct JSONRequestBody<Value: Decodable> {
    var value: Value
    var bytes: Data
}

extension Request {
    /// The body as `Value`: read into memory up to `limit` bytes (`context.maxUploadSize` when
    /// nil), then decoded by `JSONDecoder.api` (the context's `requestDecoder` has the same
    /// settings, but reads up to `maxUploadSize` only). Routes read their JSON bodies here.
    ///
    /// - A body that is not `Value` (not JSON, not an object, a member missing or of another
    ///   type, one `Value.init(from:)` refuses as a `DecodingError`) is 400 `code` with `shape`,
    ///   the route's one sentence of what to send.
    /// - A member's own refusal (422 `invalid_time_zone`, …) is an `APIProblem` thrown by
    ///   `init(from:)`: it passes as it is.
    /// - A body over `limit` is 413 `payload_too_large` naming `limit` (and the connection
    ///   closes: the rest of the body is not read).
    /// - With `whenEmpty`, a request without a body is that value (a body the route may leave out).
    func decodeJSON<Value: Decodable>(as type: Value.Type, context: TilawaRequestContext, limit: Int? = nil, shape: String,
                                      code: String = "invalid_body", whenEmpty: Value? = nil) async throws -> Value {
        try await decodeJSONBody(as: type, context: context, limit: limit, shape: shape, code: code, whenEmpty: whenEmpty).value
    }

    /// `decodeJSON`, with the bytes the body came as.
    func decodeJSONBody<Value: Decodable>(as type: Value.Type, context: TilawaRequestContext, limit: Int? = nil, shape: String,
                                          code: String = "invalid_body", whenEmpty: Value? = nil) async throws -> JSONRequestBody<Value> {
        let bytes: Data
        do {
            bytes = Data(try await body.collect(upTo: limit ?? context.maxUploadSize).readableBytesView)
        } catch is NIOTooManyBytesError {
            // Said with the route's own limit (NIO's error carries what was left of it).
            throw APIProblem.bodyTooLarge(limit: limit ?? context.maxUploadSize)
        }
        if bytes.isEmpty, let whenEmpty { return JSONRequestBody(value: whenEmpty, bytes: bytes) }
        do {
            return JSONRequestBody(value: try JSONDecoder.api.decode(Value.self, from: bytes), bytes: bytes)
        } catch is DecodingError {
            throw APIProblem.badRequest(code, shape)
        }
    }
}

/// One member's JSON value, its type kept (a `true` is not a 1); `other` for an object or an
/// array. For bodies whose members are checked one by one, each with its own refusal.
enum JSONMemberValue: Decodable, Equatable, Sendable {
    case null, bool(Bool), integer(Int), number(Double), text(String), other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else {
            self = .other
        }
    }

    var text: String? { if case let .text(value) = self { value } else { nil } }
}

/// Any member name, for a body's `init(from:)` to see every member it was sent with.
struct JSONMemberName: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

extension Decoder {
    /// The names of the members of the object being decoded; a `DecodingError` (the route's
    /// 400) when it is not an object.
    func memberNames() throws -> Set<String> {
        Set(try container(keyedBy: JSONMemberName.self).allKeys.map(\.stringValue))
    }

    /// `memberNames()`; a `DecodingError` too when one is outside `allowed`.
    @discardableResult
    func members(within allowed: Set<String>) throws -> Set<String> {
        let names = try memberNames()
        guard names.isSubset(of: allowed) else {
            throw DecodingError.notTheShape("members \(names.subtracting(allowed).sorted()) are not the body's", in: self)
        }
        return names
    }
}

extension DecodingError {
    /// A body not of its route's shape; `why` is for a developer reading the error, never sent.
    static func notTheShape(_ why: String, in decoder: any Decoder) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: why))
    }
}
