import Foundation
import GRDB

/// A student or a coach as the organisation's identity provider provisions them over SCIM
/// (DESIGN §16): the `scimUser` row beside the student's or coach's own.
///
/// The row keeps what SCIM says about the person and Tilawa's records do not: the provider's
/// `externalId`, the `name` and `emails` as it wrote them, `active`, and the version an
/// `If-Match` is checked against. `userName` is the `subject` the person signs in with.
public struct SCIMUser: Sendable, Equatable {
    /// A student or a coach.
    public var owner: Device.Owner
    /// The student's or coach's id, which is the SCIM resource's `id` too.
    public var id: String
    /// The provider's `userName`: the student's or coach's sign-in `subject`.
    public var userName: String
    public var externalId: String?
    /// The SCIM `name` object as JSON text (canonical member names), nil when unassigned.
    public var name: String?
    public var displayName: String?
    /// The SCIM `emails` array as JSON text, nil when unassigned.
    public var emails: String?
    /// Nil when the provider never said (Tilawa then treats the person as active).
    public var active: Bool?
    /// Counts every change from 1: the resource's `meta.version` and ETag, `W/"n"`.
    public var version: Int
    public var createdAt: Date
    public var lastModified: Date

    /// Whether Tilawa treats the person as provisioned and active (`active` absent counts as true).
    public var isActive: Bool { active ?? true }

    init(row: Row) throws {
        guard let owner = Device.Owner(rawValue: row["role"]) else {
            throw StoreError.internalInconsistency("a scimUser row with an unknown role")
        }
        self.owner = owner
        id = row["id"]
        userName = row["subject"]
        externalId = row["externalId"]
        name = row["name"]
        displayName = row["displayName"]
        emails = row["emails"]
        active = row["active"]
        version = row["version"]
        createdAt = row["createdAt"]
        lastModified = row["lastModified"]
    }
}

/// What a SCIM request asks a user to be (`POST`, `PUT`, or a `PATCH` applied to the user as it
/// is): the attributes the row keeps, and the person's name as Tilawa shows it.
public struct SCIMUserDraft: Sendable, Equatable {
    /// The role asked for; nil: `scim.default_role` for a new user, the user's own otherwise.
    public var owner: Device.Owner?
    public var userName: String
    public var externalId: String?
    public var name: String?
    public var displayName: String?
    public var emails: String?
    public var active: Bool?
    /// The name a student is shown by (from `name` or `displayName`); nil when the provider gave
    /// none. A coach's name is the programme file's, never this.
    public var personName: String?

    public init(owner: Device.Owner?, userName: String, externalId: String?, name: String?, displayName: String?, emails: String?,
                active: Bool?, personName: String?) {
        self.owner = owner
        self.userName = userName
        self.externalId = externalId
        self.name = name
        self.displayName = displayName
        self.emails = emails
        self.active = active
        self.personName = personName
    }

    /// Whether Tilawa treats the person as active (`active` absent counts as true).
    public var isActive: Bool { active ?? true }
}

/// Why a SCIM request changed nothing: each is one SCIM error (RFC 7644 §3.12).
public enum SCIMRefusal: Error, Sendable, Equatable {
    /// No provisioned user has this id (or it was deleted).
    case notFound
    /// `If-Match` named another version than the user's.
    case versionMismatch(current: Int)
    /// Another provisioned user has this `userName`.
    case userNameTaken(String)
    /// The `userName` is the sign-in subject of someone else (`student S1002`, `coach C01`).
    case subjectOfOther(String)
    /// The student or coach this subject names is already provisioned under another
    /// `userName`, or their id is provisioned in the other role.
    case alreadyProvisioned(String)
    /// The subject is an erased student's (the erasure ledger knows its digest).
    case erasedSubject
    /// A coach comes only from the programme file: no coach has this subject or id.
    case unknownCoach(String)
    /// The role of a provisioned user is fixed.
    case roleChange(from: Device.Owner, to: Device.Owner)
    /// A coach's subject is the programme file's; SCIM may not move it.
    case coachUserName(String)

    /// The HTTP status of the SCIM error.
    public var status: Int {
        switch self {
        case .notFound: 404
        case .versionMismatch: 412
        case .userNameTaken, .subjectOfOther, .alreadyProvisioned, .erasedSubject: 409
        case .unknownCoach, .roleChange, .coachUserName: 400
        }
    }

    /// RFC 7644 §3.12's `scimType`, where the RFC names one.
    public var scimType: String? {
        switch self {
        case .notFound, .versionMismatch, .erasedSubject: nil
        case .userNameTaken, .subjectOfOther, .alreadyProvisioned: "uniqueness"
        case .unknownCoach: "invalidValue"
        case .roleChange, .coachUserName: "mutability"
        }
    }

    /// One line for the identity provider's administrator.
    public var detail: String {
        switch self {
        case .notFound:
            "No provisioned user has this id."
        case let .versionMismatch(current):
            "The user changed since that version; it is now W/\"\(current)\". Read it again and retry."
        case let .userNameTaken(name):
            "Another provisioned user has the userName \(RosterText.quoted(name))."
        case let .subjectOfOther(holder):
            "This userName is the sign-in subject of \(holder); each person signs in as themselves."
        case let .alreadyProvisioned(holder):
            "\(holder) is already provisioned under another userName; update that user instead."
        case .erasedSubject:
            "This userName belonged to a student who was erased; an erasure is final, and only an operator may re-admit them (tilawa roster import --allow-erased)."
        case let .unknownCoach(name):
            "No coach of the programme has the subject or id \(RosterText.quoted(name)); coaches come from program.yaml: add the coach there with this subject, import it, and provision again."
        case let .roleChange(from, to):
            "The role of a provisioned user is fixed: this one is a \(from.rawValue), not a \(to.rawValue)."
        case let .coachUserName(subject):
            "A coach's userName is the subject program.yaml gives them (\(RosterText.quoted(subject))); change it there."
        }
    }
}

/// One condition of a `GET /Users` filter the store can answer (all of a query's hold at once).
public enum SCIMUserCondition: Sendable, Equatable {
    /// `userName eq`, compared without regard to ASCII case (RFC 7643: `caseExact` false).
    case userName(String)
    /// `externalId eq`, exact.
    case externalId(String)
    /// `id eq`.
    case id(String)
    /// `active eq`: an unassigned `active` matches neither.
    case active(Bool)
    /// One of the user's emails meets every comparison (`emails[type eq "work"].value eq …` is
    /// `[.type("work"), .value(…)]`): looked up by the email's value, not by reading every user.
    case email([SCIMEmailComparison])
}

/// One comparison of an email's member in a filter (RFC 7643 §4.1.2): text without regard to
/// case (`caseExact` false; Unicode's lower case, canonically equivalent text equal), `primary`
/// as a boolean.
public enum SCIMEmailComparison: Sendable, Equatable {
    /// `value eq`: the address.
    case value(String)
    /// `type eq` (`work`, `home`, …).
    case type(String)
    /// `display eq`.
    case display(String)
    /// `primary eq true|false`: an email without `primary` meets neither.
    case primary(Bool)
    /// A comparison no email meets: another member, or a value of another JSON type than the
    /// member's (`primary eq "true"`, `value eq 1`, `value eq null`).
    case unmet
}

/// One page of provisioned users and how many there are in all.
public struct SCIMUserPage: Sendable, Equatable {
    public var total: Int
    public var users: [SCIMUser]
}
