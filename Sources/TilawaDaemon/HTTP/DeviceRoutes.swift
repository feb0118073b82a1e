import Foundation
import HTTPTypes
import Hummingbird
import TilawaStore

/// The phones a student or a coach registered for pushes (APNs, FCM): `PUT` registers or
/// updates one (the app calls it at every start and whenever the token changes), `DELETE`
/// signs it out, `GET` lists them (the owner, ops).
struct DeviceRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("students/:id/devices", use: { try await list(.student, $0, $1) })
        group.put("students/:id/devices/:device_id", use: { try await put(.student, $0, $1) })
        group.delete("students/:id/devices/:device_id", use: { try await remove(.student, $0, $1) })
        group.get("coaches/:id/devices", use: { try await list(.coach, $0, $1) })
        group.put("coaches/:id/devices/:device_id", use: { try await put(.coach, $0, $1) })
        group.delete("coaches/:id/devices/:device_id", use: { try await remove(.coach, $0, $1) })
    }

    /// The owner the path names, once the principal may act for them: only the person
    /// themselves registers or removes a device; ops may also list them.
    private func owner(_ kind: Device.Owner, _ context: TilawaRequestContext, listing: Bool) async throws -> String {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        switch kind {
        case .student:
            try await api.access.requireStudent(id, for: principal, roles: listing ? [.student, .ops] : [.student])
        case .coach:
            guard principal.role == .coach || (listing && principal.role == .ops) else { throw APIProblem.forbidden() }
            try await api.access.requireCoach(id, for: principal)
        }
        return id
    }

    /// `GET …/devices`: `{"devices": [...]}`, most recently updated first.
    @Sendable func list(_ kind: Device.Owner, _ request: Request, _ context: TilawaRequestContext) async throws -> Response {
        let id = try await owner(kind, context, listing: true)
        let devices = try await api.runtime.database.devices(owner: kind, ownerId: id)
        return try api.json(DeviceListResource(devices: devices.map(DeviceResource.init)))
    }

    /// `PUT …/devices/{device_id}`: `{"platform": "ios"|"android", "token": …, "environment"?:
    /// "production"|"sandbox" (iOS; default production), "locale"?: BCP 47, "app_version"?: …}`;
    /// 201 for a new device, 200 for one updated.
    @Sendable func put(_ kind: Device.Owner, _ request: Request, _ context: TilawaRequestContext) async throws -> Response {
        let id: String
        do {
            id = try await owner(kind, context, listing: false)
        } catch {
            context.refuseBody(of: request)
            throw error
        }
        let deviceId = try Self.deviceId(in: context)
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "Send the device as application/json: {\"platform\": \"ios\", \"token\": \"…\", \"locale\": \"ar\"}.")
        }
        let registration = try await request.decodeJSON(as: DeviceRegistrationBody.self, context: context, limit: 16_384,
                                                        shape: DeviceRegistrationBody.invalid("The body is not a JSON object.").detail)
        let now = api.now
        let device = Device(owner: kind, ownerId: id, deviceId: deviceId, platform: registration.platform, token: registration.token,
                            environment: registration.environment, locale: registration.locale, appVersion: registration.appVersion,
                            registeredAt: now, updatedAt: now)
        switch try await api.runtime.database.registerDevice(device) {
        case let .created(device, replaced):
            context.logger.info("device registered", metadata: ["owner": "\(kind.rawValue):\(api.runtime.pseudonyms.owner(kind, id))", "device": "\(deviceId)",
                                                               "platform": "\(device.platform.rawValue)", "replaced": "\(replaced ?? "-")"])
            var response = try api.json(DeviceResource(device), status: .created)
            if let replaced { response.headers[.tilawaReplacedDevice] = replaced }
            return response
        case let .updated(device):
            return try api.json(DeviceResource(device))
        }
    }

    /// `DELETE …/devices/{device_id}`: 204; 404 `unknown_device`.
    @Sendable func remove(_ kind: Device.Owner, _ request: Request, _ context: TilawaRequestContext) async throws -> Response {
        let id = try await owner(kind, context, listing: false)
        let deviceId = try Self.deviceId(in: context)
        guard try await api.runtime.database.removeDevice(owner: kind, ownerId: id, deviceId: deviceId) else {
            throw APIProblem(.notFound, code: "unknown_device", detail: "No device \(deviceId) is registered here.")
        }
        context.logger.info("device signed out", metadata: ["owner": "\(kind.rawValue):\(api.runtime.pseudonyms.owner(kind, id))", "device": "\(deviceId)"])
        return Response(status: .noContent)
    }

    /// The path's device id: `[A-Za-z0-9_-]{1,64}`, the app's own id for the install.
    static func deviceId(in context: TilawaRequestContext) throws -> String {
        guard let id = context.parameters.get("device_id"), (1...64).contains(id.utf8.count),
              id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || ($0 < 0x80 && Character(Unicode.Scalar($0)).isLetter)
                  || ($0 >= 0x30 && $0 <= 0x39) }) else {
            throw APIProblem(.badRequest, code: "invalid_device_id", detail: "A device id is 1–64 letters, digits, - or _ (the app's own id for the install).")
        }
        return id
    }
}

extension HTTPField.Name {
    /// The device a new registration replaced to stay within the limit.
    static let tilawaReplacedDevice = Self("Tilawa-Replaced-Device")!
}

/// A `PUT …/devices/{id}` body, checked: 400 `invalid_body` naming what is wrong; a token that
/// cannot be the platform's is 422 `invalid_device_token` (an APNs token is 64–200 hex digits,
/// an FCM one 1–4096 characters of letters, digits and `-_:.`).
struct DeviceRegistrationBody: Decodable, Sendable, Equatable {
    var platform: Device.Platform
    var token: String
    var environment: Device.Environment
    var locale: String?
    var appVersion: String?

    static let shape = "The body must be {\"platform\": \"ios\" or \"android\", \"token\": \"…\", \"environment\": \"production\" or \"sandbox\" (iOS only), \"locale\": \"ar-EG\", \"app_version\": \"2.4.1\"}."

    /// 400 `invalid_body`: `why`, then the shape.
    static func invalid(_ why: String) -> APIProblem { APIProblem(.badRequest, code: "invalid_body", detail: why + " " + shape) }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case platform, token, environment, locale
        case appVersion = "app_version"
    }

    /// Every member's type is checked here, not by the decoder, so that each refusal names it
    /// (a `DecodingError` would be "not a JSON object").
    init(from decoder: any Decoder) throws {
        let invalid = Self.invalid
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let stray = try decoder.memberNames().sorted().first(where: { !known.contains($0) }) { throw invalid("\(stray) is not a member.") }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let platformName = try? container.decode(String.self, forKey: .platform), let platform = Device.Platform(rawValue: platformName) else {
            throw invalid("platform is missing or not ios or android.")
        }
        guard let token = try? container.decode(String.self, forKey: .token) else { throw invalid("token is missing or not a string.") }
        var environment = Device.Environment.production
        if container.contains(.environment), !((try? container.decodeNil(forKey: .environment)) ?? false) {
            guard let name = try? container.decode(String.self, forKey: .environment), let chosen = Device.Environment(rawValue: name) else {
                throw invalid("environment is not production or sandbox.")
            }
            guard platform == .ios || chosen == .production else { throw invalid("environment sandbox is APNs' only (iOS).") }
            environment = chosen
        }
        let locale = try Self.optionalText(container, .locale, limit: 35, allowed: { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let appVersion = try Self.optionalText(container, .appVersion, limit: 32,
                                               allowed: { $0.isLetter || $0.isNumber || ".-+_ ()".contains($0) })
        let validToken = switch platform {
        case .ios: (64...200).contains(token.utf8.count) && token.utf8.count % 2 == 0 && token.allSatisfy(\.isHexDigit)
        case .android: (1...4096).contains(token.utf8.count) && token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_:.".contains($0)) }
        }
        guard validToken else {
            throw APIProblem(.unprocessableContent, code: "invalid_device_token",
                             detail: platform == .ios ? "An APNs device token is 64–200 hexadecimal digits." : "An FCM registration token is 1–4096 letters, digits, -, _, : or . characters.")
        }
        self.init(platform: platform, token: platform == .ios ? token.lowercased() : token, environment: environment,
                  locale: locale, appVersion: appVersion)
    }

    init(platform: Device.Platform, token: String, environment: Device.Environment, locale: String?, appVersion: String?) {
        self.platform = platform
        self.token = token
        self.environment = environment
        self.locale = locale
        self.appVersion = appVersion
    }

    /// An optional text member: nil when absent or null; 1…`limit` plain ASCII characters
    /// `allowed` accepts, or 400.
    private static func optionalText(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, limit: Int,
                                     allowed: (Character) -> Bool) throws -> String? {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return nil }
        guard let text = try? container.decode(String.self, forKey: key), (1...limit).contains(text.count),
              text.allSatisfy({ $0.isASCII && allowed($0) }) else {
            throw invalid("\(key.stringValue) is not 1–\(limit) plain ASCII characters.")
        }
        return text
    }
}

/// A device as the API says it (the token is not said back: the app has it).
struct DeviceResource: Encodable, Sendable {
    let deviceId: String
    let platform: String
    let environment: String
    let locale: String?
    let appVersion: String?
    let registeredAt: Date
    let updatedAt: Date

    init(_ device: Device) {
        deviceId = device.deviceId
        platform = device.platform.rawValue
        environment = device.environment.rawValue
        locale = device.locale
        appVersion = device.appVersion
        registeredAt = device.registeredAt
        updatedAt = device.updatedAt
    }
}

struct DeviceListResource: Encodable, Sendable {
    let devices: [DeviceResource]
}
