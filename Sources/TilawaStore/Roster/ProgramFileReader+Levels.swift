import Foundation
import TilawaCore
import TilawaQuran
import Yams

/// The `levels` of program.yaml: id, name, every week's passage and the optional end-of-course assessment.
extension ProgramFileReader {
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
}
