import GRDB

/// The values bound to one statement's parameters, on either engine: positional (`?`) or
/// named (`:name`), never both.
///
/// GRDB's `StatementArguments` keeps its values to itself; the PostgreSQL engine needs to read
/// them to bind `$1…$n`, so the store's operations write their arguments as this instead.
public struct SQLArguments: Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public private(set) var values: [DatabaseValue]
    public private(set) var namedValues: [String: DatabaseValue]

    public init() {
        values = []
        namedValues = [:]
    }

    public init(_ values: some Sequence<(any DatabaseValueConvertible)?>) {
        self.values = values.map { $0?.databaseValue ?? .null }
        namedValues = [:]
    }

    public init(_ values: some Sequence<some DatabaseValueConvertible>) {
        self.values = values.map(\.databaseValue)
        namedValues = [:]
    }

    public init(named: [String: (any DatabaseValueConvertible)?]) {
        values = []
        namedValues = named.mapValues { $0?.databaseValue ?? .null }
    }

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }

    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(named: Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public var isEmpty: Bool { values.isEmpty && namedValues.isEmpty }

    /// The same values as GRDB binds them.
    var statementArguments: StatementArguments {
        namedValues.isEmpty ? StatementArguments(values) : StatementArguments(namedValues)
    }

    public mutating func append(contentsOf other: SQLArguments) {
        values += other.values
        namedValues.merge(other.namedValues) { _, new in new }
    }

    public static func + (lhs: SQLArguments, rhs: SQLArguments) -> SQLArguments {
        var sum = lhs
        sum.append(contentsOf: rhs)
        return sum
    }

    public static func += (lhs: inout SQLArguments, rhs: SQLArguments) {
        lhs.append(contentsOf: rhs)
    }
}

extension SQLArguments {
    /// `column IN (?, …)` for `count` values, or a condition no row meets when there are none
    /// (`IN ()` is SQLite's alone).
    public static func inList(_ column: String, count: Int) -> String {
        count == 0 ? "1 = 0" : "\(column) IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
    }
}
