import Foundation
import HTTPTypes
import Hummingbird

/// The wire vocabulary of "Resumable Uploads for HTTP" (draft-ietf-httpbis-resumable-upload)
/// across the interop versions clients send in `Upload-Draft-Interop-Version`:
///
/// | interop | drafts | differences handled here |
/// |---|---|---|
/// | 3 | -01 | `Upload-Incomplete: ?1` marks a part that does not end the upload |
/// | 4 | -02 | `Upload-Complete: ?0/?1` instead |
/// | 5 | -03 | (200 allowed for offset retrieval; this server answers 204 to all) |
/// | 6 | -04, -05 | appends carry `Content-Type: application/partial-upload`; `Upload-Limit` (`expires`), `Upload-Length` |
/// | 7 | -06 to -08 | `Upload-Limit`'s `expires` becomes `max-age` |
/// | 8 | -09 to -11 | limits always announced |
///
/// Values are RFC 8941 structured fields: booleans `?0`/`?1`, non-negative integers.
enum DraftUploadProtocol {
    static let versions = 3...8
    static let partialUploadMediaType = "application/partial-upload"

    /// The request's interop version; nil when it does not speak the draft; 400 for a version
    /// this server does not know.
    static func version(of request: Request) throws -> Int? {
        guard let value = request.headers[.uploadDraftInteropVersion] else { return nil }
        guard let version = Int(value.trimmingCharacters(in: .whitespaces)), versions.contains(version) else {
            throw APIProblem.badRequest("interop_version_unsupported",
                                        "Upload-Draft-Interop-Version \(value) is not supported; this server speaks \(versions.lowerBound) to \(versions.upperBound).")
        }
        return version
    }

    /// Whether the request's body ends the upload (`Upload-Complete`, or the inverse
    /// `Upload-Incomplete` of interop 3); nil when the request does not say.
    static func completes(_ request: Request, version: Int) throws -> Bool? {
        let name: HTTPField.Name = version >= 4 ? .uploadComplete : .uploadIncomplete
        guard let value = request.headers[name] else { return nil }
        guard let flag = boolean(value) else {
            throw APIProblem.badRequest("invalid_upload_header", "\(name.canonicalName) must be ?0 or ?1.")
        }
        return version >= 4 ? flag : !flag
    }

    /// The headers that say whether an upload is complete, in `version`'s words.
    static func completeness(_ complete: Bool, version: Int) -> HTTPFields {
        version >= 4 ? [.uploadComplete: complete ? "?1" : "?0"] : [.uploadIncomplete: complete ? "?0" : "?1"]
    }

    /// `Upload-Draft-Interop-Version` echoed.
    static func versionHeaders(_ version: Int) -> HTTPFields {
        [.uploadDraftInteropVersion: "\(version)"]
    }

    /// The headers of an upload's state: version, offset, completeness, known length.
    static func stateHeaders(offset: Int64, length: Int64?, complete: Bool, version: Int) -> HTTPFields {
        var headers = versionHeaders(version)
        headers[.uploadOffset] = "\(offset)"
        headers.append(contentsOf: completeness(complete, version: version))
        if version >= 6, let length { headers[.uploadLength] = "\(length)" }
        return headers
    }

    /// `Upload-Limit` (interop 6 on): the largest upload and, for an existing upload, how long
    /// it will be kept (`expires` until interop 7 renamed it `max-age`).
    static func limitHeaders(version: Int, maxBytes: Int64, expiresIn: TimeInterval?) -> HTTPFields {
        guard version >= 6 else { return [:] }
        var value = "max-size=\(maxBytes)"
        if let expiresIn { value += ", \(version >= 7 ? "max-age" : "expires")=\(max(0, Int64(expiresIn)))" }
        return [.uploadLimit: value]
    }

    /// An sf-integer header (`Upload-Offset`, `Upload-Length`); nil when absent, 400 when malformed.
    static func integer(_ request: Request, _ name: HTTPField.Name) throws -> Int64? {
        guard let value = request.headers[name] else { return nil }
        guard let number = TusProtocol.count(value.trimmingCharacters(in: .whitespaces)) else {
            throw APIProblem.badRequest("invalid_upload_header", "\(name.canonicalName) must be a non-negative integer.")
        }
        return number
    }

    static func boolean(_ value: String) -> Bool? {
        switch value.trimmingCharacters(in: .whitespaces) {
        case "?1": true
        case "?0": false
        default: nil
        }
    }
}

extension HTTPField.Name {
    static let uploadDraftInteropVersion = Self("Upload-Draft-Interop-Version")!
    static let uploadComplete = Self("Upload-Complete")!
    static let uploadIncomplete = Self("Upload-Incomplete")!
    static let uploadLimit = Self("Upload-Limit")!
}
