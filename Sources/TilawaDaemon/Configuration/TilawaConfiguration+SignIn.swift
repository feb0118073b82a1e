import Foundation
import TilawaCore
import TilawaPostgres
import TilawaS3

/// `desk.*`, `auth.*` and `oidc.*`: who may sign in, and how.
extension TilawaConfiguration {
    mutating func readDesk(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        if let setting = values.optionalText("desk.public_url") {
            let rule = "must be an http or https origin such as https://tilawa.example.org (no path, query or fragment)"
            guard let url = URL(string: setting.text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil,
                  url.user == nil
            else { throw values.invalid("desk.public_url", rule, setting) }
            var text = setting.text
            while text.hasSuffix("/") { text.removeLast() }
            desk.publicURL = URL(string: text)
        }
        desk.sessionDays = try values.integer("desk.session_days", default: desk.sessionDays, in: 1...365)
        desk.sessionMaxDays = try values.integer("desk.session_max_days", default: max(desk.sessionMaxDays, desk.sessionDays), in: desk.sessionDays...3_650)
        if let setting = values.optionalText("desk.link_request") {
            guard ["true", "false"].contains(setting.text) else { throw values.invalid("desk.link_request", "must be one of true or false", setting) }
            desk.linkRequest = setting.text == "true"
            // A request nobody receives would leave the coach waiting for a link that never comes.
            if desk.linkRequest, webhook.url == nil {
                throw values.invalid("desk.link_request", "needs webhook.url: the organisation delivers the link from the webhook", setting)
            }
        }
    }

    mutating func readAuth(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        if let setting = try values.text("auth.jwt_key_file", rule: "must be a path, not empty") {
            auth.jwtKeyFile = secretLocation(setting.text)
            auth.jwtKeyFileIsExplicit = true
        }
        auth.defaultTokenTTL = try values.number("auth.default_token_ttl_seconds", default: auth.defaultTokenTTL, in: 60...31_536_000)
        auth.localTokens = try values.choice("auth.local_tokens", default: "true", among: ["true", "false"]) == "true"
        try readOIDC(&values)
    }

    mutating func readOIDC(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let issuer = values.optionalText("oidc.issuer")
        let audience = values.optionalText("oidc.audience")
        let url = values.optionalText("oidc.jwks_url")
        let file = try values.path("oidc.jwks_file", workingDirectory: workingDirectory)
        let ops = values.optionalText("oidc.ops_subjects")
        let subjectIsId = try values.choice("oidc.subject_is_id", default: "false", among: ["true", "false"]) == "true"
        let deskClient = values.optionalText("oidc.desk_client_id")
        let deskName = values.optionalText("oidc.desk_name")
        guard issuer != nil || audience != nil || url != nil || file != nil || deskClient != nil || deskName != nil else {
            if !auth.localTokens {
                throw ConfigurationError(key: "auth.local_tokens", message: "is false but no identity provider is configured (oidc.issuer, oidc.audience, oidc.jwks_url): no token could sign in")
            }
            return
        }
        guard let issuer else { throw ConfigurationError(key: "oidc.issuer", message: "is required with the other oidc keys") }
        guard let audience else { throw ConfigurationError(key: "oidc.audience", message: "is required with the other oidc keys") }
        var oidc = OIDC(issuer: issuer.text, audience: audience.text, jwksURL: nil, jwksFile: file, subjectIsId: subjectIsId)
        if let url {
            guard file == nil else { throw ConfigurationError(key: "oidc.jwks_file", message: "give oidc.jwks_url or oidc.jwks_file, not both") }
            guard let parsed = URL(string: url.text), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  parsed.host?.isEmpty == false else {
                throw values.invalid("oidc.jwks_url", "must be an http or https URL such as https://id.example.org/.well-known/jwks.json", url)
            }
            oidc.jwksURL = parsed
        } else if file == nil {
            throw ConfigurationError(key: "oidc.jwks_url", message: "is required (or oidc.jwks_file) with oidc.issuer: the provider's keys")
        }
        if let deskClient {
            guard deskClient.text.utf8.count <= 255, !deskClient.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
                throw values.invalid("oidc.desk_client_id", "must be the client id the provider gave the desk (one word, at most 255 bytes)", deskClient)
            }
            oidc.deskClientId = deskClient.text
        }
        if let deskName {
            guard deskClient != nil else { throw ConfigurationError(key: "oidc.desk_name", message: "names the provider on the desk's sign-in button: set oidc.desk_client_id too") }
            guard deskName.text.count <= 60, !deskName.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw values.invalid("oidc.desk_name", "must be one line of at most 60 characters", deskName)
            }
            oidc.deskName = deskName.text
        }
        if let ops {
            for pair in ops.text.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 255, Identifier(rawValue: parts[1]) != nil else {
                    throw values.invalid("oidc.ops_subjects", "must be sub=name pairs separated by commas, each name an id ([A-Za-z0-9_-]{1,64})", ops)
                }
                oidc.opsSubjects[parts[0]] = parts[1]
            }
        }
        self.oidc = oidc
    }
}
