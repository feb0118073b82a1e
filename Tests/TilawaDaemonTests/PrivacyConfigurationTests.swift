import Foundation
import Testing
import TilawaCore
@testable import TilawaDaemon

/// `privacy.*` (DESIGN §16): off by default; a required consent needs the policy's address;
/// the ages and the grace within their ranges; the terms the rules apply.
@Suite("Configuration: privacy.*")
struct PrivacyConfigurationTests {
    @Test("the defaults: no consent required, no policy, adults from 18, erasure 30 days after the request")
    func defaults() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let privacy = try scratch.load().privacy
        #expect(!privacy.requireConsent && privacy.policyURL == nil && privacy.policyVersion == nil)
        #expect(privacy.adultAge == 18 && privacy.erasureGraceDays == 30 && privacy.erasureGrace == 30 * 86_400)
        #expect(privacy.consentTerms == ConsentTerms(required: false, policyURL: nil, policyVersion: nil, adultAge: 18))
    }

    @Test("from the environment (TILAWA_PRIVACY_…) and from the file, into the rules' terms")
    func read() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let config = try scratch.load(environment: [
            "TILAWA_PRIVACY_REQUIRE_CONSENT": "true", "TILAWA_PRIVACY_POLICY_URL": "https://example.org/recording-policy",
            "TILAWA_PRIVACY_POLICY_VERSION": "2026-09", "TILAWA_PRIVACY_ADULT_AGE": "16", "TILAWA_PRIVACY_ERASURE_GRACE_DAYS": "0",
        ])
        #expect(config.privacy.consentTerms == ConsentTerms(required: true, policyURL: "https://example.org/recording-policy",
                                                            policyVersion: "2026-09", adultAge: 16))
        #expect(config.privacy.erasureGrace == 0)
        let file = try scratch.write("config/tilawa.yaml", """
            privacy:
              require_consent: true
              policy_url: https://example.org/p
              adult_age: 21
            """)
        let fromFile = try scratch.load(file: file)
        #expect(fromFile.privacy.requireConsent && fromFile.privacy.policyURL?.absoluteString == "https://example.org/p" && fromFile.privacy.adultAge == 21)
    }

    @Test("a required consent without privacy.policy_url is refused, naming the key; a policy that is not an http(s) URL too")
    func policyRequired() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let error = #expect(throws: ConfigurationError.self) {
            try scratch.load(environment: ["TILAWA_PRIVACY_REQUIRE_CONSENT": "true"])
        }
        #expect(error?.key == "privacy.policy_url" && error?.description.contains("privacy.require_consent is true") == true)
        for url in ["ftp://example.org/p", "example.org/p", "https://example.org/a policy"] {
            let bad = #expect(throws: ConfigurationError.self) {
                try scratch.load(environment: ["TILAWA_PRIVACY_POLICY_URL": url])
            }
            #expect(bad?.key == "privacy.policy_url" && bad?.description.contains("must be an http or https URL") == true, "\(url)")
        }
        let yes = #expect(throws: ConfigurationError.self) { try scratch.load(environment: ["TILAWA_PRIVACY_REQUIRE_CONSENT": "yes"]) }
        #expect(yes?.key == "privacy.require_consent")
        let long = #expect(throws: ConfigurationError.self) {
            try scratch.load(environment: ["TILAWA_PRIVACY_POLICY_VERSION": String(repeating: "v", count: 201)])
        }
        #expect(long?.key == "privacy.policy_version")
    }

    @Test("privacy.adult_age 1–30 and privacy.erasure_grace_days 0–365, at their bounds", arguments: [
        ("privacy.adult_age", "0", false), ("privacy.adult_age", "1", true), ("privacy.adult_age", "30", true), ("privacy.adult_age", "31", false),
        ("privacy.erasure_grace_days", "-1", false), ("privacy.erasure_grace_days", "0", true), ("privacy.erasure_grace_days", "365", true),
        ("privacy.erasure_grace_days", "366", false),
    ])
    func bounds(_ key: String, _ value: String, _ accepted: Bool) throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let environment = [environmentName(key): value]
        if accepted {
            #expect(numericField(key, of: try scratch.load(environment: environment)) == Double(value))
        } else {
            let error = #expect(throws: ConfigurationError.self) { try scratch.load(environment: environment) }
            #expect(error?.key == key && error?.description.hasPrefix("\(key): must be an integer from ") == true, "\(String(describing: error))")
        }
    }
}
