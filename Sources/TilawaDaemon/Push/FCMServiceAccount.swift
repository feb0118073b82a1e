import Foundation
import _CryptoExtras

/// A Google service account's JSON key (`"type": "service_account"`), as the Firebase console
/// issues it: what signs the OAuth 2.0 assertion FCM's access tokens are exchanged for.
struct FCMServiceAccount: Sendable {
    var projectId: String
    var clientEmail: String
    var privateKeyId: String
    var privateKey: _RSA.Signing.PrivateKey
    /// Where the assertion is exchanged (`https://oauth2.googleapis.com/token`).
    var tokenURI: URL

    /// The account in the file at `path`, or a sentence saying what is wrong with it.
    static func load(_ path: String) -> Result<FCMServiceAccount, FCMAccountProblem> {
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(.unreadable(path)) }
        struct File: Decodable {
            var type: String?
            var project_id: String?
            var client_email: String?
            var private_key_id: String?
            var private_key: String?
            var token_uri: String?
        }
        guard let file = try? JSONDecoder().decode(File.self, from: data) else { return .failure(.notJSON(path)) }
        guard file.type == "service_account" else { return .failure(.wrong(path, "its \"type\" is not \"service_account\"")) }
        guard let email = file.client_email, !email.isEmpty, let keyId = file.private_key_id, !keyId.isEmpty,
              let project = file.project_id, !project.isEmpty else {
            return .failure(.wrong(path, "it lacks client_email, private_key_id or project_id"))
        }
        guard let pem = file.private_key, let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) else {
            return .failure(.wrong(path, "its private_key is not an RSA key of 2048 bits or more in PEM"))
        }
        let uri = file.token_uri ?? "https://oauth2.googleapis.com/token"
        guard let tokenURI = URL(string: uri), tokenURI.scheme == "https", tokenURI.host != nil else {
            return .failure(.wrong(path, "its token_uri is not an https URL"))
        }
        return .success(FCMServiceAccount(projectId: project, clientEmail: email, privateKeyId: keyId, privateKey: key, tokenURI: tokenURI))
    }

    /// The scope FCM's HTTP v1 API asks for.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// The signed assertion (RFC 7523) issued at `instant`, valid for the hour Google allows.
    func assertion(at instant: Date) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": privateKeyId], options: [.sortedKeys])
        let issued = Int(instant.timeIntervalSince1970)
        let claims = try JSONSerialization.data(withJSONObject: [
            "iss": clientEmail, "scope": Self.scope, "aud": tokenURI.absoluteString, "iat": issued, "exp": issued + 3_600,
        ] as [String: Any], options: [.sortedKeys, .withoutEscapingSlashes])
        let input = APNsProviderToken.base64URL(header) + "." + APNsProviderToken.base64URL(claims)
        let signature = try privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + APNsProviderToken.base64URL(signature.rawRepresentation)
    }
}

/// Why a service account file cannot be used.
enum FCMAccountProblem: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case notJSON(String)
    case wrong(String, String)

    var description: String {
        switch self {
        case let .unreadable(path): "cannot read \(path)"
        case let .notJSON(path): "\(path) is not a service account's JSON key (as the Firebase console's \"Generate new private key\" gives)"
        case let .wrong(path, why): "\(path) is not a usable service account key: \(why)"
        }
    }
}
