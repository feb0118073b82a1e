import Foundation
import TilawaCore
import TilawaQuran
import Yams

/// The `coaches` of program.yaml: id, name, contact, placing, gender, bio, photo and subject.
extension ProgramFileReader {
    func coaches(_ top: YAMLMapping) throws(RosterError) -> [CoachDefinition] {
        guard let items = try top.list("coaches") else { return [] }
        var seen = [String: Int?]()
        var coaches = [CoachDefinition]()
        var subjectsSeen = [String: Int?]()
        for (index, node) in items.enumerated() {
            let item = try YAMLMapping(node, path: "\(top.path("coaches"))[\(index)]", source: source)
            // A misspelt key explains the item's other problems (a "missing" title), so it comes first.
            try item.checkKeys(allowed: Self.coachKeys)
            var problems = FirstProblem()
            let id = problems.attempt { () throws(RosterError) in
                let id = try item.identifier("id", what: "coach id")
                try checkUnique(id.rawValue, what: "coach", in: item, seen: &seen)
                return id
            }
            let name = problems.attempt { () throws(RosterError) in try item.text("name") ?? "" }
            let email = problems.attempt { () throws(RosterError) in try self.email(item) }
            let places = problems.attempt { () throws(RosterError) in try self.flag(item, "places") }
            let gender = problems.attempt { () throws(RosterError) in try self.gender(item) }
            let bio = problems.attempt { () throws(RosterError) in try self.bio(item) }
            let photo = problems.attempt { () throws(RosterError) in try self.photo(item) }
            let subject = problems.attempt { () throws(RosterError) -> String? in
                guard let text = try item.text("subject", required: false) else { return nil }
                guard RosterText.isSubject(text) else {
                    throw RosterError(.invalidValue, source: source, line: item.line(of: "subject"),
                                      "\(item.path("subject")) must be one line of at most 255 characters (the identity provider's sub)")
                }
                if let earlier = subjectsSeen[text] {
                    throw RosterError(.duplicateSubject, source: source, line: item.line(of: "subject"),
                                      "\(item.path("subject")) is the subject of the coach on line \(earlier.map(String.init) ?? "?") too; each person signs in as themselves")
                }
                subjectsSeen[text] = item.line(of: "subject")
                return text
            }
            try problems.throwIfAny()
            guard let id, let name, let email, let places, let gender, let bio, let photo, let subject else { continue }
            coaches.append(CoachDefinition(id: id, name: name, email: email, places: places, gender: gender, bio: bio,
                                           photo: photo, photoLine: photo == nil ? nil : item.line(of: "photo"), subject: subject))
        }
        return coaches
    }

    /// The optional `gender`: `female` or `male`; nil when absent.
    func gender(_ item: YAMLMapping) throws(RosterError) -> String? {
        guard let text = try item.text("gender", required: false) else { return nil }
        guard let gender = Gender.normalised(text) else {
            throw RosterError(.invalidValue, source: source, line: item.line(of: "gender"),
                              "\(item.path("gender")) must be female or male, not \(RosterText.quoted(text))")
        }
        return gender
    }

    /// The optional `photo`: a relative path to a file beside the programme file — no `..`, no
    /// absolute path, no control characters (whether it is an image is checked at import).
    func photo(_ item: YAMLMapping) throws(RosterError) -> String? {
        guard let text = try item.text("photo", required: false) else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !text.isEmpty, text.utf8.count <= 255, !text.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }),
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RosterError(.invalidValue, source: source, line: item.line(of: "photo"),
                              "\(item.path("photo")) must be the name of an image file beside the programme file (e.g. photos/c01.jpg), not \(RosterText.quoted(text))")
        }
        return text
    }

    /// The optional `bio`: plain text, at most 600 characters, no control characters but line breaks.
    func bio(_ item: YAMLMapping) throws(RosterError) -> String? {
        guard let text = try item.text("bio", required: false) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 600, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) else {
            throw RosterError(.invalidValue, source: source, line: item.line(of: "bio"),
                              "\(item.path("bio")) must be plain text of at most 600 characters")
        }
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The optional `email`, checked only for the shape `local@domain` with no spaces.
    func email(_ item: YAMLMapping) throws(RosterError) -> String? {
        guard let text = try item.text("email", required: false) else { return nil }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
              !text.unicodeScalars.contains(where: { $0.properties.isWhitespace })
        else {
            throw RosterError(
                .invalidValue, source: source, line: item.line(of: "email"),
                "\(item.path("email")) \(RosterText.quoted(text)) is not an e-mail address"
            )
        }
        return text
    }
}
