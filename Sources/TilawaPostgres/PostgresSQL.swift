import GRDB
import TilawaStore

/// The store's SQL (written for both engines: `?` and `:name` parameters, unquoted
/// identifiers) as PostgreSQL takes it: `$1…$n` parameters, one statement per query, and
/// quoted identifiers folded to lower case as PostgreSQL folds unquoted ones.
enum PostgresSQL {
    /// One statement of a translated text, with the values of its parameters in order.
    struct Statement: Equatable {
        var sql: String
        var values: [DatabaseValue]
    }

    /// Why a text cannot be translated: a programming error in the store's SQL, never input.
    struct TranslationError: Error, CustomStringConvertible {
        var description: String
    }

    /// Splits `sql` at its top-level semicolons and numbers each statement's parameters.
    /// Quoted strings, quoted identifiers, comments and dollar-quoted bodies are copied as they
    /// are (mixed-case identifiers lower-cased).
    static func statements(_ sql: String, _ arguments: SQLArguments) throws -> [Statement] {
        var statements: [Statement] = []
        var current = Statement(sql: "", values: [])
        var named: [String: Int] = [:]
        var positional = arguments.values.makeIterator()
        let characters = Array(sql.unicodeScalars)
        var index = 0

        func finishStatement() {
            if !current.sql.allSatisfy({ $0.isWhitespace }) { statements.append(current) }
            current = Statement(sql: "", values: [])
            named = [:]
        }
        /// Copies from `index` through the first `terminator` after `start` characters.
        func copy(until terminator: [Unicode.Scalar], skipping start: Int, transform: (String) -> String = { $0 }) {
            var end = index + start
            while end < characters.count {
                if Array(characters[end..<min(end + terminator.count, characters.count)]) == terminator {
                    end += terminator.count
                    break
                }
                end += 1
            }
            current.sql += transform(String(String.UnicodeScalarView(characters[index..<end])))
            index = end
        }

        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "'":
                copy(until: ["'"], skipping: 1)
            case "\"":
                // A quoted column name written as the store writes it (`"studentId"`) means the
                // column PostgreSQL folded to lower case; an all-capitals name (`"C"`, a
                // collation) is left as it is.
                copy(until: ["\""], skipping: 1) { $0.contains(where: \.isLowercase) ? $0.lowercased() : $0 }
            case "-" where next == "-":
                copy(until: ["\n"], skipping: 2)
            case "/" where next == "*":
                copy(until: ["*", "/"], skipping: 2)
            case "$" where next == "$":
                copy(until: ["$", "$"], skipping: 2)
            case ";":
                finishStatement()
                index += 1
            case "?":
                guard let value = positional.next() else { throw TranslationError(description: "more ? than arguments in: \(sql)") }
                current.values.append(value)
                current.sql += "$\(current.values.count)"
                index += 1
            case ":" where next.map(isNameStart) ?? false && (index == 0 || characters[index - 1] != ":"):
                var end = index + 1
                while end < characters.count, isNamePart(characters[end]) { end += 1 }
                let name = String(String.UnicodeScalarView(characters[index + 1..<end]))
                guard let value = arguments.namedValues[name] else { throw TranslationError(description: "no argument :\(name) in: \(sql)") }
                if let number = named[name] {
                    current.sql += "$\(number)"
                } else {
                    current.values.append(value)
                    named[name] = current.values.count
                    current.sql += "$\(current.values.count)"
                }
                index = end
            default:
                current.sql.unicodeScalars.append(character)
                index += 1
            }
        }
        finishStatement()
        if positional.next() != nil { throw TranslationError(description: "more arguments than ? in: \(sql)") }
        return statements
    }

    private static func isNameStart(_ character: Unicode.Scalar) -> Bool {
        character == "_" || (character.properties.isAlphabetic && character.isASCII)
    }

    private static func isNamePart(_ character: Unicode.Scalar) -> Bool {
        isNameStart(character) || ("0"..."9").contains(character)
    }
}
