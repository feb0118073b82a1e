import Foundation
import TilawaCore

/// `privacy.*`: consent to the recording policy and erasure asked by the student (DESIGN §16).
extension TilawaConfiguration {
    /// `privacy.*`.
    public struct Privacy: Sendable, Hashable {
        /// `privacy.require_consent`: uploads need a consent that counts.
        public var requireConsent = false
        /// `privacy.policy_url`: the policy students read; never nil when `requireConsent`.
        public var policyURL: URL?
        /// `privacy.policy_version`: when set, only a consent to this version counts.
        public var policyVersion: String?
        /// `privacy.adult_age`: younger students consent through a guardian (1…30).
        public var adultAge = 18
        /// `privacy.erasure_grace_days`: from an erasure request to its erasure (0…365).
        public var erasureGraceDays = 30

        /// The defaults: no consent required, 18, 30 days.
        public init() {}

        /// `erasureGraceDays` in seconds.
        public var erasureGrace: TimeInterval { TimeInterval(erasureGraceDays) * 86_400 }

        /// The terms the rules and the consent routes apply.
        public var consentTerms: ConsentTerms {
            ConsentTerms(required: requireConsent, policyURL: policyURL?.absoluteString, policyVersion: policyVersion, adultAge: adultAge)
        }
    }

    mutating func readPrivacy(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let require = try values.choice("privacy.require_consent", default: "false", among: ["true", "false"]) == "true"
        let url = values.optionalText("privacy.policy_url")
        let version = values.optionalText("privacy.policy_version")
        privacy.adultAge = try values.integer("privacy.adult_age", default: privacy.adultAge, in: 1...30)
        privacy.erasureGraceDays = try values.integer("privacy.erasure_grace_days", default: privacy.erasureGraceDays, in: 0...365)
        if let url {
            // Quoted in every consent_required sentence: one plain link, no spaces or control characters.
            guard let parsed = URL(string: url.text), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  parsed.host?.isEmpty == false, parsed.user == nil,
                  !url.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
                throw values.invalid("privacy.policy_url", "must be an http or https URL such as https://example.org/recording-policy", url)
            }
            privacy.policyURL = parsed
        }
        if let version {
            guard version.text.count <= ConsentTerms.maximumTextLength,
                  !version.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw values.invalid("privacy.policy_version", "must be one line of at most \(ConsentTerms.maximumTextLength) characters", version)
            }
            privacy.policyVersion = version.text
        }
        privacy.requireConsent = require
        // A student refused consent_required must be able to read what they are asked to accept.
        if require, privacy.policyURL == nil {
            throw ConfigurationError(key: "privacy.policy_url", message: """
                is required when privacy.require_consent is true: every refused upload points the student to the policy to accept
                """)
        }
    }
}
