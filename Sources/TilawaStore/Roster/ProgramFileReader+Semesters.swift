import Foundation
import TilawaCore
import TilawaQuran
import Yams

/// The `semesters` of program.yaml: id, name and a Saturday start, each made a calendar in the file's zone.
extension ProgramFileReader {
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
}
