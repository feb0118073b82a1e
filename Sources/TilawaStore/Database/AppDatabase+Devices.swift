import Foundation
import GRDB

/// A phone a student or a coach signed in on, registered for pushes (DESIGN §14, APNs/FCM).
public struct Device: Sendable, Equatable, Codable {
    /// Whose: a student or a coach.
    public enum Owner: String, Sendable, Codable {
        case student, coach
    }

    public enum Platform: String, Sendable, Codable, CaseIterable {
        case ios, android
    }

    /// APNs' two services; FCM has one (`production`).
    public enum Environment: String, Sendable, Codable, CaseIterable {
        case production, sandbox
    }

    public var owner: Owner
    public var ownerId: String
    /// The app's own id for the install (`[A-Za-z0-9_-]{1,64}`), stable across token changes.
    public var deviceId: String
    public var platform: Platform
    /// The APNs device token (hex) or the FCM registration token.
    public var token: String
    public var environment: Environment
    /// The app's language (BCP 47, as the phone says it), passed to the app's own strings.
    public var locale: String?
    public var appVersion: String?
    public var registeredAt: Date
    public var updatedAt: Date

    public init(owner: Owner, ownerId: String, deviceId: String, platform: Platform, token: String, environment: Environment,
                locale: String?, appVersion: String?, registeredAt: Date, updatedAt: Date) {
        self.owner = owner
        self.ownerId = ownerId
        self.deviceId = deviceId
        self.platform = platform
        self.token = token
        self.environment = environment
        self.locale = locale
        self.appVersion = appVersion
        self.registeredAt = registeredAt
        self.updatedAt = updatedAt
    }

    /// The most devices one person keeps: an eleventh registration lets the one updated
    /// longest ago go (a phone replaced without signing out).
    public static let limit = 10

    init(row: Row) throws {
        guard let owner = Owner(rawValue: row["ownerKind"]), let platform = Platform(rawValue: row["platform"]),
              let environment = Environment(rawValue: row["environment"]) else {
            throw StoreError.internalInconsistency("a device row with an unknown owner, platform or environment")
        }
        self.init(owner: owner, ownerId: row["ownerId"], deviceId: row["deviceId"], platform: platform, token: row["token"],
                  environment: environment, locale: row["locale"], appVersion: row["appVersion"],
                  registeredAt: row["registeredAt"], updatedAt: row["updatedAt"])
    }
}

/// What `registerDevice` did.
public enum DeviceRegistration: Sendable, Equatable {
    /// A new device (`replaced`: the oldest one that went to stay within `Device.limit`).
    case created(Device, replaced: String?)
    case updated(Device)
}

extension AppDatabase {
    /// The migration "devices: pushes". Never edited once landed.
    static func migrateDevices(_ db: Database) throws {
        try db.create(table: "device") { t in
            t.column("ownerKind", .text).notNull()
            t.column("ownerId", .text).notNull()
            t.column("deviceId", .text).notNull()
            t.column("platform", .text).notNull()
            t.column("token", .text).notNull()
            t.column("environment", .text).notNull()
            t.column("locale", .text)
            t.column("appVersion", .text)
            t.column("registeredAt", .datetime).notNull()
            t.column("updatedAt", .datetime).notNull()
            t.primaryKey(["ownerKind", "ownerId", "deviceId"])
        }
        // One row per token: a token registered again (another account on the phone, the app
        // reinstalled) moves there, so a phone never gets another person's notices.
        try db.create(index: "device_token", on: "device", columns: ["platform", "token"], unique: true)
    }

    /// Registers (or updates) `device` for its owner in one transaction: the token moves from
    /// any other row that held it, and a new device beyond `Device.limit` replaces the owner's
    /// least recently updated one.
    public func registerDevice(_ device: Device) async throws -> DeviceRegistration {
        try await engine.write { db in
            try db.execute(sql: """
                DELETE FROM device WHERE platform = ? AND token = ? AND NOT (ownerKind = ? AND ownerId = ? AND deviceId = ?)
                """, arguments: [device.platform.rawValue, device.token, device.owner.rawValue, device.ownerId, device.deviceId])
            let key: SQLArguments = [device.owner.rawValue, device.ownerId, device.deviceId]
            if let existing = try Row.fetchOne(db, sql: "SELECT * FROM device WHERE ownerKind = ? AND ownerId = ? AND deviceId = ?", arguments: key) {
                var updated = device
                updated.registeredAt = existing["registeredAt"]
                try db.execute(sql: """
                    UPDATE device SET platform = ?, token = ?, environment = ?, locale = ?, appVersion = ?, updatedAt = ?
                    WHERE ownerKind = ? AND ownerId = ? AND deviceId = ?
                    """, arguments: [device.platform.rawValue, device.token, device.environment.rawValue, device.locale, device.appVersion,
                                     device.updatedAt, device.owner.rawValue, device.ownerId, device.deviceId])
                return .updated(updated)
            }
            var replaced: String?
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device WHERE ownerKind = ? AND ownerId = ?",
                                         arguments: [device.owner.rawValue, device.ownerId]) ?? 0
            if count >= Device.limit {
                replaced = try String.fetchOne(db, sql: """
                    SELECT deviceId FROM device WHERE ownerKind = ? AND ownerId = ? ORDER BY updatedAt, deviceId LIMIT 1
                    """, arguments: [device.owner.rawValue, device.ownerId])
                if let replaced {
                    try db.execute(sql: "DELETE FROM device WHERE ownerKind = ? AND ownerId = ? AND deviceId = ?",
                                   arguments: [device.owner.rawValue, device.ownerId, replaced])
                }
            }
            try db.execute(sql: """
                INSERT INTO device (ownerKind, ownerId, deviceId, platform, token, environment, locale, appVersion, registeredAt, updatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [device.owner.rawValue, device.ownerId, device.deviceId, device.platform.rawValue, device.token,
                                 device.environment.rawValue, device.locale, device.appVersion, device.registeredAt, device.updatedAt])
            return .created(device, replaced: replaced)
        }
    }

    /// Signs a device out; false when the owner had no such device.
    public func removeDevice(owner: Device.Owner, ownerId: String, deviceId: String) async throws -> Bool {
        try await engine.write { db in
            try db.execute(sql: "DELETE FROM device WHERE ownerKind = ? AND ownerId = ? AND deviceId = ?",
                           arguments: [owner.rawValue, ownerId, deviceId])
            return db.changesCount > 0
        }
    }

    /// The owner's devices, most recently updated first.
    public func devices(owner: Device.Owner, ownerId: String) async throws -> [Device] {
        try await engine.read { db in try Self.devices(db, owner: owner, ownerId: ownerId) }
    }

    /// The rows as they stand now of the devices `devices` names (owner and device id), in one
    /// query: those signed out or erased since are missing, a replaced token shows its new value.
    public func currentDevices(_ devices: [Device]) async throws -> [Device] {
        guard !devices.isEmpty else { return [] }
        return try await engine.read { db in
            var found: [Device] = []
            // A few dozen at a time: one statement's placeholders stay far under either engine's limit.
            for chunk in stride(from: 0, to: devices.count, by: 64).map({ devices[$0..<min($0 + 64, devices.count)] }) {
                let match = Array(repeating: "(ownerKind = ? AND ownerId = ? AND deviceId = ?)", count: chunk.count).joined(separator: " OR ")
                let arguments = chunk.flatMap { [$0.owner.rawValue, $0.ownerId, $0.deviceId] as [(any DatabaseValueConvertible)?] }
                found += try Row.fetchAll(db, sql: "SELECT * FROM device WHERE \(match)", arguments: SQLArguments(arguments)).map(Device.init(row:))
            }
            return found
        }
    }

    static func devices(_ db: SQLSession, owner: Device.Owner, ownerId: String) throws -> [Device] {
        try Row.fetchAll(db, sql: "SELECT * FROM device WHERE ownerKind = ? AND ownerId = ? ORDER BY updatedAt DESC, deviceId",
                         arguments: [owner.rawValue, ownerId]).map(Device.init(row:))
    }
}
