import Foundation

/// Who gave a consent to the recording policy: the student themself, or a guardian on behalf
/// of a minor (DESIGN §16). Stored as its raw value.
public enum ConsentGiver: String, Sendable, Hashable, Codable, CaseIterable {
    case student, guardian
}

/// `privacy.*` as the rules read them (DESIGN §16): whether a recording needs a consent, to
/// which policy, and who may give it. Pure: the instant and the zone are passed in.
public struct ConsentTerms: Sendable, Hashable, Codable {
    /// `privacy.require_consent`: every upload (the placement assessment too) needs a consent
    /// that counts.
    public var required: Bool
    /// `privacy.policy_url`: the policy the student reads (never nil when `required`).
    public var policyURL: String?
    /// `privacy.policy_version`: when set, only a consent to this version counts.
    public var policyVersion: String?
    /// `privacy.adult_age`: younger students need a guardian's consent.
    public var adultAge: Int

    /// The longest version or guardian name kept (one line).
    public static let maximumTextLength = 200

    public init(required: Bool = false, policyURL: String? = nil, policyVersion: String? = nil, adultAge: Int = 18) {
        self.required = required
        self.policyURL = policyURL
        self.policyVersion = policyVersion
        self.adultAge = adultAge
    }

    /// Whether `text` may be a policy version or a guardian's name: one line of 1 to
    /// `maximumTextLength` characters, not only spaces.
    public static func isText(_ text: String) -> Bool {
        (1...maximumTextLength).contains(text.count) && !text.trimmingCharacters(in: .whitespaces).isEmpty
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether a consent to `version` counts now: any version while no `policyVersion` is
    /// set, else only that one (a consent to an older policy counts no more).
    public func counts(version: String) -> Bool {
        policyVersion.map { $0 == version } ?? true
    }

    /// Whether someone born on `dateOfBirth` is a minor at `now`: younger than `adultAge` by
    /// the calendar of `timeZone` (the programme's). Unknown (nil) is not a minor.
    public func isMinor(dateOfBirth: LocalDate?, at now: Date, in timeZone: TimeZone) -> Bool {
        guard let dateOfBirth else { return false }
        return dateOfBirth.age(at: now, in: timeZone) < adultAge
    }

    /// Why a consent to `version` given by `giver` (with `guardianName`) cannot be recorded for
    /// a student born on `dateOfBirth` at `now`, or nil when it can: another version than the
    /// policy's (`policy_version_mismatch`, first: no one should sign an old text), then a
    /// guardian's consent without the guardian's name, or a minor's own (`guardian_required`).
    public func refusal(version: String, givenBy giver: ConsentGiver, guardianName: String?, dateOfBirth: LocalDate?,
                        now: Date, timeZone: TimeZone) -> PrivacyRefusal? {
        if let current = policyVersion, current != version {
            return .policyVersionMismatch(given: version, current: current)
        }
        let named = !(guardianName ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        let minor = isMinor(dateOfBirth: dateOfBirth, at: now, in: timeZone)
        if (minor && giver != .guardian) || (giver == .guardian && !named) {
            return .guardianRequired(adultAge: adultAge)
        }
        return nil
    }
}
