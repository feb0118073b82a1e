import Synchronization

/// Primary keys by table, read once from the catalogue (they change only with a migration).
final class PostgresCatalog: Sendable {
    private let keys = Mutex<[String: [String]]>([:])

    func primaryKey(of table: String, read: (String) throws -> [String]) throws -> [String] {
        if let known = keys.withLock({ $0[table] }) { return known }
        let columns = try read(table)
        keys.withLock { $0[table] = columns }
        return columns
    }
}
