import Foundation
import TilawaStore

/// One-time login links to the coach's desk (DESIGN §9): `<desk.public_url>/desk/login?token=…`,
/// valid `lifetime` (15 minutes) and once. Only the secret's hash is stored; the link itself
/// is printed once (`tilawa token issue --coach ID --link`) or answered once (`POST
/// /v1/coaches/{id}/login-links`), never logged.
public struct LoginLinks: Sendable {
    /// How long a link may be opened.
    public static let lifetime: TimeInterval = 15 * 60

    let database: AppDatabase
    let configuration: TilawaConfiguration

    /// Links for the daemon or command line of `runtime`.
    public init(runtime: TilawaRuntime) {
        database = runtime.database
        configuration = runtime.configuration
    }

    /// A new link for `coachId`, or nil when no such coach is in the programme.
    public func issue(coachId: String, now: Date) async throws -> (url: String, expiresAt: Date)? {
        let secret = DeskSecret.make()
        let expiresAt = now.addingTimeInterval(Self.lifetime)
        guard try await database.createLoginLink(coachId: coachId, secretHash: DeskSecret.hash(secret), now: now, expiresAt: expiresAt) else {
            return nil
        }
        return ("\(Self.origin(configuration))/desk/login?token=\(secret)", expiresAt)
    }

    /// The origin links are printed with: `desk.public_url`, or the listener's own address.
    public static func origin(_ configuration: TilawaConfiguration) -> String {
        if let url = configuration.desk.publicURL { return url.absoluteString }
        let host = configuration.http.host.contains(":") ? "[\(configuration.http.host)]" : configuration.http.host
        return "http://\(host):\(configuration.http.port)"
    }
}
