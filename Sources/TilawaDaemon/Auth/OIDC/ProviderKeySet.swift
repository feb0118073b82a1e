import Foundation
import JWTKit

/// The identity provider's published keys (a JWKS document, RFC 7517), read defensively.
///
/// jwt-kit's own `add(jwks:)` fails the whole set on one key without `kid`, and for a JWK
/// without `alg` builds — and keeps — a signer from the *token's* header `alg`. So each key is
/// read here and added with its algorithm fixed by its type: an RSA key verifies RS256 only,
/// an EC P-256 key ES256 only. Keys without `kid`, with `use: enc`, of another type or curve,
/// or with an `alg` other than those are skipped and reported, never fatal.
struct ProviderKeySet: Sendable {
    /// What a usable key verifies.
    enum Algorithm: String, Sendable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    /// The usable keys by `kid`, with the one algorithm each verifies.
    let algorithms: [String: Algorithm]
    /// A fresh collection holding exactly those keys (never mutated after it is built).
    let keys: JWTKeyCollection
    /// One line per key skipped, for `status`.
    let skipped: [String]

    private struct Document: Decodable {
        let keys: [Key]
    }

    private struct Key: Decodable {
        let kid: String?
        let kty: String?
        let use: String?
        let alg: String?
        let crv: String?
        let n: String?
        let e: String?
        let x: String?
        let y: String?
    }

    /// Reads `data`; throws only when it is not a JWKS document at all.
    static func read(_ data: Data) async throws -> ProviderKeySet {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw ProviderKeyError.notAKeySet
        }
        let collection = JWTKeyCollection()
        var algorithms: [String: Algorithm] = [:]
        var skipped: [String] = []
        for (index, key) in document.keys.enumerated() {
            let name = key.kid.map { "kid \($0)" } ?? "key \(index + 1)"
            guard let kid = key.kid, !kid.isEmpty, kid.utf8.count <= 256 else {
                skipped.append("\(name): no kid")
                continue
            }
            guard algorithms[kid] == nil else {
                skipped.append("\(name): a second key with this kid")
                continue
            }
            if let use = key.use, use != "sig" {
                skipped.append("\(name): use \(use)")
                continue
            }
            do {
                switch (key.kty, key.crv) {
                case ("RSA", _):
                    guard key.alg == nil || key.alg == "RS256" else { skipped.append("\(name): alg \(key.alg ?? "")"); continue }
                    guard let n = key.n, let e = key.e else { skipped.append("\(name): no n or e"); continue }
                    let rsa = try Insecure.RSA.PublicKey(modulus: n, exponent: e)
                    await collection.add(rsa: rsa, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
                    algorithms[kid] = .rs256
                case ("EC", "P-256"):
                    guard key.alg == nil || key.alg == "ES256" else { skipped.append("\(name): alg \(key.alg ?? "")"); continue }
                    guard let x = key.x, let y = key.y else { skipped.append("\(name): no x or y"); continue }
                    let ec = try ES256PublicKey(parameters: (x: x, y: y))
                    await collection.add(ecdsa: ec, kid: JWKIdentifier(string: kid))
                    algorithms[kid] = .es256
                default:
                    skipped.append("\(name): type \(key.kty ?? "none")\(key.crv.map { " \($0)" } ?? "") is not RSA or EC P-256")
                }
            } catch {
                skipped.append("\(name): its numbers do not make a key")
            }
        }
        return ProviderKeySet(algorithms: algorithms, keys: collection, skipped: skipped)
    }
}

enum ProviderKeyError: Error, Sendable, CustomStringConvertible {
    case notAKeySet
    case fetch(String)

    var description: String {
        switch self {
        case .notAKeySet: "the document is not a JWKS ({\"keys\": [...]})"
        case let .fetch(why): why
        }
    }
}
