import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore

/// A `PUT /v1/students/{id}/consent` body, decoded by Hummingbird's request decoder:
/// `{"version": "…", "given_by": "student" | "guardian", "guardian_name"?: "…"}`, nothing else.
struct ConsentBody: Decodable, Sendable {
    var version: String
    var givenBy: ConsentGiver
    var guardianName: String?

    static let shape = #"{"version": "2026-09", "given_by": "student" or "guardian", "guardian_name": "…" (with a guardian's consent)}"#

    enum CodingKeys: String, CodingKey {
        case version
        case givenBy = "given_by"
        case guardianName = "guardian_name"
    }

    /// Any member name, to refuse those the body may not have.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    init(from decoder: any Decoder) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        if let stray = all.allKeys.first(where: { CodingKeys(stringValue: $0.stringValue) == nil }) {
            throw DecodingError.dataCorruptedError(forKey: stray, in: all, debugDescription: "\(stray.stringValue) is not a member")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        givenBy = try container.decode(ConsentGiver.self, forKey: .givenBy)
        guardianName = try container.decodeIfPresent(String.self, forKey: .guardianName)
    }

    /// The request's body: 415 when it is not JSON; 400 `invalid_body` for another shape, a
    /// version or guardian name that is not one line of 1–200 characters, or a guardian's name
    /// with the student's own consent.
    static func read(_ request: Request, context: TilawaRequestContext) async throws -> ConsentBody {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send the consent as application/json: \(shape).")
        }
        let body: ConsentBody
        do {
            body = try await request.decode(as: ConsentBody.self, context: context)
        } catch let error as HTTPError where error.status == .badRequest {
            throw APIProblem.badRequest("invalid_body", "The body must be \(shape).")
        }
        guard ConsentTerms.isText(body.version) else {
            throw APIProblem.badRequest("invalid_body", "version must be the policy's version: 1 to \(ConsentTerms.maximumTextLength) characters on one line.")
        }
        if let name = body.guardianName {
            guard body.givenBy == .guardian else {
                throw APIProblem.badRequest("invalid_body", "guardian_name goes with given_by guardian; a student's own consent names no guardian.")
            }
            guard ConsentTerms.isText(name) else {
                throw APIProblem.badRequest("invalid_body", "guardian_name must be 1 to \(ConsentTerms.maximumTextLength) characters on one line.")
            }
        }
        return body
    }
}
