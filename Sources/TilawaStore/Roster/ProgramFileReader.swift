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

    // MARK: Semesters

    func semesters(_ top: YAMLMapping, zone: TimeZone?, grace: Int) throws(RosterError) -> [SemesterDefinition] {
        guard let items = try top.list("semesters") else { return [] }
        var seen = [String: Int?]()
        var semesters = [SemesterDefinition]()
        for (index, node) in items.enumerated() {
            let item = try YAMLMapping(node, path: "\(top.path("semesters"))[\(index)]", source: source)
            // A misspelt key explains the item's other problems (a "missing" title), so it comes first.
            try item.checkKeys(allowed: Self.semesterKeys)
            var problems = FirstProblem()
            let id = problems.attempt { () throws(RosterError) in
                let id = try item.identifier("id", what: "semester id")
                try checkUnique(id.rawValue, what: "semester", in: item, seen: &seen)
                return id
            }
            let name = problems.attempt { () throws(RosterError) in try item.text("name") ?? "" }
            let start = problems.attempt { () throws(RosterError) in try startDate(item) }
            var calendar: SemesterCalendar?
            if let start, let zone {
                calendar = problems.attempt { () throws(RosterError) in try semesterCalendar(start, zone: zone, grace: grace, item: item) }
            }
            try problems.throwIfAny()
            // Without a zone (its own problem, reported by the caller) there is no calendar to build.
            guard let id, let name, let start, let calendar else { continue }
            semesters.append(SemesterDefinition(id: id, name: name, start: start, calendar: calendar))
        }
        return semesters
    }

    func startDate(_ item: YAMLMapping) throws(RosterError) -> LocalDate {
        // The node's text as written: a YAML date (`2026-09-05`) and a quoted one read the same.
        let text = try item.text("start") ?? ""
        guard let date = LocalDate(text) else {
            throw RosterError(
                .invalidValue, source: source, line: item.line(of: "start"),
                "\(item.path("start")) must be a date written YYYY-MM-DD, not \(RosterText.quoted(text))"
            )
        }
        return date
    }

    func semesterCalendar(_ start: LocalDate, zone: TimeZone, grace: Int, item: YAMLMapping) throws(RosterError) -> SemesterCalendar {
        do throws(RuleConfigurationError) {
            return try SemesterCalendar(start: start, timeZone: zone, weekCount: ProgramFile.weekCount, catchUpGraceDays: grace)
        } catch {
            let line = item.line(of: "start")
            let place = item.path("start")
            switch error {
            case .semesterNotSaturday:
                let (weekday, saturday) = Self.weekdayAndSaturdayBefore(start, in: zone)
                throw RosterError(
                    .semesterNotSaturday, source: source, line: line,
                    "\(place): \(start) is a \(weekday) in \(zone.identifier); a semester starts on a Saturday, when week 1 unlocks (the Saturday before is \(saturday))"
                )
            case .invalidStartDate:
                throw RosterError(.invalidValue, source: source, line: line, "\(place): \(start) is not a real calendar date")
            case let .invalidTimeZone(name):
                throw RosterError(.invalidTimeZone, source: source, line: line, "time zone \(RosterText.quoted(name)) is unknown")
            default:
                throw RosterError(.invalidValue, source: source, line: line, "\(place): \(error.description)")
            }
        }
    }

    /// The English weekday name of `date` and the Saturday on or before it, in `zone`.
    static func weekdayAndSaturdayBefore(_ date: LocalDate, in zone: TimeZone) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        guard let noon = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12)) else {
            return ("day other than Saturday", "unknown")
        }
        let weekday = calendar.component(.weekday, from: noon)  // 1 = Sunday … 7 = Saturday
        let back = weekday % 7  // days since the last Saturday
        guard let saturday = calendar.date(byAdding: .day, value: -back, to: noon) else {
            return (names[weekday - 1], "unknown")
        }
        let parts = calendar.dateComponents([.year, .month, .day], from: saturday)
        let text = LocalDate(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0).description
        return (names[weekday - 1], text)
    }

    // MARK: Levels

    func levels(_ top: YAMLMapping) throws(RosterError) -> [LevelDefinition] {
        guard let items = try top.list("levels") else { return [] }
        var seen = [String: Int?]()
        var levels = [LevelDefinition]()
        for (index, node) in items.enumerated() {
            let item = try YAMLMapping(node, path: "\(top.path("levels"))[\(index)]", source: source)
            // A misspelt key explains the item's other problems (a "missing" title), so it comes first.
            try item.checkKeys(allowed: Self.levelKeys)
            var problems = FirstProblem()
            let id = problems.attempt { () throws(RosterError) in
                let id = try item.identifier("id", what: "level id").rawValue
                try checkUnique(id, what: "level", in: item, seen: &seen)
                return id
            }
            let name = problems.attempt { () throws(RosterError) in try item.text("name") ?? "" }
            let weeks = problems.attempt { () throws(RosterError) in try self.weeks(item, levelID: id) }
            let eoc = problems.attempt { () throws(RosterError) in try self.eoc(item) }
            try problems.throwIfAny()
            guard let id, let name, let weeks, let eoc else { continue }
            levels.append(LevelDefinition(id: id, name: name, weeks: weeks, eoc: eoc))
        }
        return levels
    }

    /// The level's optional `eoc:` block: the week it opens (default 14) and its passage.
    func eoc(_ level: YAMLMapping) throws(RosterError) -> LevelDefinition.EOC {
        guard let node = level.value("eoc") else { return LevelDefinition.EOC() }
        let item = try YAMLMapping(node, path: level.path("eoc"), source: source)
        try item.checkKeys(allowed: Self.eocKeys)
        var opensWeek = 14
        if let text = try item.text("opens_week", required: false) {
            guard let slot = try? Slot(parsing: text, weekCount: ProgramFile.weekCount), case let .week(number) = slot else {
                throw RosterError(
                    .invalidWeek, source: source, line: item.line(of: "opens_week"),
                    "\(item.path("opens_week")): \(RosterText.quoted(text)) is not a week; the assessment opens in a week 1 to \(ProgramFile.weekCount)")
            }
            opensWeek = number
        }
        return LevelDefinition.EOC(
            opensWeek: opensWeek, title: try item.text("title", required: false), passage: try item.text("passage", required: false),
            ayahs: try ayahs(item), arabic: try item.text("arabic", required: false), covers: try item.text("covers", required: false))
    }

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

    func weeks(_ level: YAMLMapping, levelID: String?) throws(RosterError) -> [WeekDefinition] {
        let items = try level.list("weeks", required: true) ?? []
        let named = levelID.map { " in level \(RosterText.quoted($0))" } ?? ""
        var lines = [Int: Int?]()
        var weeks = [WeekDefinition]()
        for (index, node) in items.enumerated() {
            let item = try YAMLMapping(node, path: "\(level.path("weeks"))[\(index)]", source: source)
            // A misspelt key explains the item's other problems (a "missing" title), so it comes first.
            try item.checkKeys(allowed: Self.weekKeys)
            var problems = FirstProblem()
            let number = problems.attempt { () throws(RosterError) in
                let number = try weekNumber(item)
                if let earlier = lines[number] {
                    throw RosterError(
                        .invalidWeek, source: source, line: item.line(of: "week"),
                        "\(item.path("week")): week \(number) appears twice\(named)\(earlier.map { " (first on line \($0))" } ?? ""); each week is defined once"
                    )
                }
                lines[number] = item.line(of: "week")
                return number
            }
            let title = problems.attempt { () throws(RosterError) in try item.text("title") ?? "" }
            let passage = problems.attempt { () throws(RosterError) in try item.text("passage") ?? "" }
            let ayahs = problems.attempt { () throws(RosterError) in try self.ayahs(item) }
            try problems.throwIfAny()
            guard let number, let title, let passage, let ayahs else { continue }
            weeks.append(WeekDefinition(week: number, title: title, passage: passage, ayahs: ayahs))
        }
        let missing = (1...ProgramFile.weekCount).filter { lines[$0] == nil }
        if !missing.isEmpty {
            let list = missing.map(String.init).joined(separator: ", ")
            throw RosterError(
                .incompleteCurriculum, source: source, line: level.line,
                "\(level.path)\(levelID.map { " (level \(RosterText.quoted($0)))" } ?? "") defines \(weeks.count) of \(ProgramFile.weekCount) weeks; missing week\(missing.count == 1 ? "" : "s") \(list)"
            )
        }
        return weeks.sorted { $0.week < $1.week }
    }

    func weekNumber(_ item: YAMLMapping) throws(RosterError) -> Int {
        let text = try item.text("week") ?? ""
        // Slot's rule for week text: one or two ASCII digits, 1…weekCount.
        if let slot = try? Slot(parsing: text, weekCount: ProgramFile.weekCount), case let .week(number) = slot {
            return number
        }
        throw RosterError(
            .invalidWeek, source: source, line: item.line(of: "week"),
            "\(item.path("week")): \(RosterText.quoted(text)) is not a week; weeks are numbered 1 to \(ProgramFile.weekCount)"
        )
    }

    /// The optional `ayahs` of a week or an EOC, checked against Tanzil's Quran text; empty when absent.
    func ayahs(_ item: YAMLMapping) throws(RosterError) -> [AyahRange] {
        guard let text = try item.text("ayahs", required: false) else { return [] }
        do throws(AyahRangeError) {
            return try AyahRange.parseList(text, in: QuranText.uthmani)
        } catch {
            let code: RosterError.Code = switch error {
            case .unknownSurah, .unknownAyah: .unknownAyah
            case .empty, .malformed, .reversed, .overlapping: .invalidAyahs
            }
            throw RosterError(code, source: source, line: item.line(of: "ayahs"), "\(item.path("ayahs")): \(error.description)")
        }
    }

    // MARK: Shared

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
