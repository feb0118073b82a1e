import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// The signed-out page's other ways in: what it may offer, and a coach asking for a new link.
extension DeskRoutes {
    /// `GET /desk/sign-in`: the ways to sign in besides a login link, for the signed-out page:
    /// `{"provider": "<name on the button>" | null, "start": "/desk/oidc/start" | null,
    /// "link_request": true | false}` (`desk.link_request`: a coach may ask for a new link).
    @Sendable func signInOptions(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        struct Options: Encodable {
            var provider: String?
            var start: String?
            var linkRequest: Bool

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(provider, forKey: .provider)
                try container.encode(start, forKey: .start)
                try container.encode(linkRequest, forKey: .linkRequest)
            }

            enum CodingKeys: String, CodingKey {
                case provider, start
                case linkRequest = "link_request"
            }
        }
        return try api.json(Options(provider: provider?.name, start: provider == nil ? nil : "/desk/oidc/start",
                                    linkRequest: api.runtime.configuration.desk.linkRequest),
                            headers: [.cacheControl: "no-store"])
    }

    /// How often one coach's link may be asked for: a page anyone can post to must not flood
    /// the organisation (or the coach) with links.
    static let linkRequestInterval: TimeInterval = 10 * 60

    /// The answer to every well-formed request for a link, whoever it names: whether a coach
    /// matched is never told (no one learns the roster, or a coach's address, from this page).
    static let linkRequestAnswer = "If that is a coach of the programme, the organisation has been asked to send a new link; "
        + "it works once, for 15 minutes. Nothing arriving? Ask the programme's office."

    /// `POST /desk/link-request` `{"who": "<coach id or email>"}` (`desk.link_request`): a new
    /// login link for that coach goes to the webhook as `desk_link_requested` for the
    /// organisation to deliver; the answer is 202 with the same sentence whoever was named, and
    /// never holds the link. 404 when `desk.link_request` is off; 400 `invalid_link_request`
    /// for a body that is not `{"who": "…"}`.
    @Sendable func requestLink(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard api.runtime.configuration.desk.linkRequest else { throw APIProblem.notFound("asking for a login link here") }
        let body = try await request.decodeJSON(as: LinkRequestBody.self, context: context, limit: 2048,
                                                shape: "Send {\"who\": \"<your coach ID or email>\"}.", code: "invalid_link_request")
        let secret = DeskSecret.make()
        let now = api.now
        let origin = LoginLinks.origin(api.runtime.configuration)
        let outcome = try await api.runtime.database.requestDeskLink(
            who: body.who, secretHash: DeskSecret.hash(secret), url: { _ in "\(origin)/desk/login?token=\(secret)" }, now: now,
            expiresAt: now.addingTimeInterval(LoginLinks.lifetime), interval: Self.linkRequestInterval)
        switch outcome {
        case let .queued(coachId, eventId):
            context.logger.info("desk link requested", metadata: ["coach": "\(api.runtime.pseudonyms.coach(coachId))", "event": "\(eventId)"])
        case let .tooSoon(coachId):
            context.logger.info("desk link request ignored: one was sent within 10 minutes", metadata: ["coach": "\(api.runtime.pseudonyms.coach(coachId))"])
        case .unknownCoach:
            context.logger.info("desk link request for no coach")
        }
        struct Answer: Encodable { var detail: String }
        return try api.json(Answer(detail: Self.linkRequestAnswer), status: .accepted, headers: [.cacheControl: "no-store"])
    }
}

/// A `POST /desk/link-request` body: `{"who": "<coach id or email>"}`, 1 to 254 bytes not all
/// blank (other members are ignored).
struct LinkRequestBody: Decodable {
    var who: String

    enum CodingKeys: String, CodingKey { case who }

    init(from decoder: any Decoder) throws {
        who = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .who)
        guard !who.trimmingCharacters(in: .whitespaces).isEmpty, who.utf8.count <= 254 else {
            throw DecodingError.notTheShape("who is blank or longer than 254 bytes", in: decoder)
        }
    }
}
