import Foundation
import TilawaCore
import TilawaQuran
import Yams

/// Walks the node tree of `config/program.yaml` into a `ProgramFile` (see `ProgramFile.parse`).
///
/// Lists are read item by item in file order and stop at the first bad item. Within the
/// root and within one item every key is checked and the problem on the lowest line wins,
/// except that an unknown key in an item is reported before the item's other problems.
struct ProgramFileReader {
    let source: String

    static let rootKeys = ["time_zone", "catch_up_grace_days", "same_gender_coaching", "semesters", "coaches", "levels"]
    static let semesterKeys = ["id", "name", "start"]
    static let coachKeys = ["id", "name", "email", "places", "gender", "bio", "photo", "subject"]
    static let levelKeys = ["id", "name", "weeks", "eoc"]
    // `arabic` (hand-typed EOC text) is still read from older files; `ayahs` replaces it.
    static let eocKeys = ["opens_week", "title", "passage", "ayahs", "arabic", "covers"]
    static let weekKeys = ["week", "title", "passage", "ayahs"]

    func read(_ root: Node?) throws(RosterError) -> ProgramFile {
        guard let root else {
            throw RosterError(.missingField, source: source, line: nil, "the file is empty; it needs at least one of semesters, coaches, levels")
        }
        guard case .mapping = root else {
            throw RosterError(
                .malformedYAML, source: source, line: root.mark?.line,
                "the file must be a YAML mapping with the keys \(Self.rootKeys.joined(separator: ", ")), not \(YAMLMapping.kind(of: root))"
            )
        }
        let top = try YAMLMapping(root, path: "", source: source)
        var problems = FirstProblem()
        problems.attempt { () throws(RosterError) in try top.checkKeys(allowed: Self.rootKeys) }
        let zone = problems.attempt { () throws(RosterError) in try timeZone(top) }
        let grace = problems.attempt { () throws(RosterError) in try graceDays(top) }
        let semesters = problems.attempt { () throws(RosterError) in
            try self.semesters(top, zone: zone, grace: grace ?? ProgramFile.defaultCatchUpGraceDays)
        }
        let coaches = problems.attempt { () throws(RosterError) in try self.coaches(top) }
        let levels = problems.attempt { () throws(RosterError) in try self.levels(top) }
        let sameGender = problems.attempt { () throws(RosterError) in try self.flag(top, "same_gender_coaching") }
        try problems.throwIfAny()
        guard top.has("semesters") || top.has("coaches") || top.has("levels") else {
            throw RosterError(.missingField, source: source, line: top.line, "the file defines none of semesters, coaches, levels; add at least one")
        }
        guard let zone, let grace, let semesters, let coaches, let levels else {
            // Unreachable: each nil above recorded a problem, and throwIfAny threw it.
            throw RosterError(.invalidValue, source: source, line: nil, "the file could not be read")
        }
        var program = ProgramFile(timeZone: zone, catchUpGraceDays: grace, semesters: semesters, coaches: coaches, levels: levels)
        program.sameGenderCoaching = sameGender ?? false
        return program
    }

    // MARK: Settings

    func timeZone(_ top: YAMLMapping) throws(RosterError) -> TimeZone {
        let name = try top.text("time_zone", required: false) ?? ProgramFile.defaultTimeZoneIdentifier
        guard let zone = TimeZone(identifier: name) else {
            throw RosterError(
                .invalidTimeZone, source: source, line: top.line(of: "time_zone"),
                "time_zone \(RosterText.quoted(name)) is not a time zone this system knows; use an IANA name such as America/New_York"
            )
        }
        return zone
    }

    func graceDays(_ top: YAMLMapping) throws(RosterError) -> Int {
        guard let text = try top.text("catch_up_grace_days", required: false) else {
            return ProgramFile.defaultCatchUpGraceDays
        }
        guard let days = Self.wholeNumber(text), days >= 0 else {
            throw RosterError(
                .invalidValue, source: source, line: top.line(of: "catch_up_grace_days"),
                "catch_up_grace_days must be a whole number of days, 0 or more, not \(RosterText.quoted(text))"
            )
        }
        return days
    }

    // MARK: Shared

    /// An optional `true`/`false` (default false).
    func flag(_ item: YAMLMapping, _ key: String) throws(RosterError) -> Bool {
        guard let text = try item.text(key, required: false) else { return false }
        switch text.lowercased() {
        case "true", "yes": return true
        case "false", "no": return false
        default:
            throw RosterError(.invalidValue, source: source, line: item.line(of: key),
                              "\(item.path(key)) must be true or false, not \(RosterText.quoted(text))")
        }
    }

    /// Refuses an id already seen in this list, naming the earlier line.
    func checkUnique(_ id: String, what: String, in item: YAMLMapping, seen: inout [String: Int?]) throws(RosterError) {
        let line = item.line(of: "id")
        if let earlier = seen[id] {
            throw RosterError(
                .duplicateID, source: source, line: line,
                "\(item.path("id")): duplicate \(what) id \(RosterText.quoted(id))\(earlier.map { " (first defined on line \($0))" } ?? "")"
            )
        }
        seen[id] = line
    }

    /// Optional sign and ASCII digits, at most 9 of them; nil otherwise.
    static func wholeNumber(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard (1...9).contains(digits.utf8.count),
              digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }
}
