import AsyncHTTPClient
import Foundation
import NIOCore

/// The S3 operations Tilawa's artifacts need, path-style (`endpoint/bucket/key`), every
/// request signed with SigV4 over its payload's SHA-256 (the store checks the body it got is
/// the body signed). Large files go up in parts (`multipartThreshold`, parts of `partSize` ≥
/// 5 MiB, S3's minimum for every part but the last); a failed multipart upload is aborted.
public struct S3Client: Sendable {
    /// `http(s)://host[:port]`, without a path.
    public let endpoint: URL
    public let signer: SigV4Signer
    public var http: HTTPClient
    public var multipartThreshold = 16 << 20
    public var partSize = 8 << 20
    public var timeout: TimeAmount = .seconds(120)
    /// The signing clock (a test pins it; the store refuses a date more than 15 minutes off).
    public var now: @Sendable () -> Date = { Date() }

    public init(endpoint: URL, credentials: S3Credentials, region: String, http: HTTPClient = .shared) {
        self.endpoint = endpoint
        self.signer = SigV4Signer(credentials: credentials, region: region)
        self.http = http
    }

    /// What a listing holds: the keys (with size and ETag) and where the next page starts.
    public struct Listing: Sendable {
        public struct Object: Sendable, Equatable {
            public let key: String
            public let size: Int64
            public let etag: String
            /// When the store says the object was written (`LastModified`), if it said so readably.
            public var lastModified: Date? = nil
        }
        public var objects: [Object]
        /// With a delimiter: the key prefixes up to it, each once (the "folders").
        public var commonPrefixes: [String] = []
        public var nextContinuationToken: String?
    }

    /// An object's metadata (HEAD).
    public struct ObjectInfo: Sendable, Equatable {
        public let size: Int64
        public let etag: String
        public let contentType: String?
    }

    /// A GET's answer: 200 or 206, its headers and its body, streamed.
    public struct Object: Sendable {
        public let status: Int
        public let contentLength: Int64?
        public let contentRange: String?
        public let contentType: String?
        public let body: HTTPClientResponse.Body
    }

    // MARK: Buckets and objects

    /// Creates the bucket; one that exists and is ours is not an error.
    public func createBucket(_ bucket: String) async throws {
        do {
            _ = try await send("PUT", bucket: bucket, key: nil)
        } catch let error as S3Error where error.code == "BucketAlreadyOwnedByYou" {
            return
        }
    }

    /// Stores `bytes` as `key`; returns the ETag.
    @discardableResult
    public func putObject(bucket: String, key: String, bytes: [UInt8], contentType: String? = nil) async throws -> String {
        let response = try await send("PUT", bucket: bucket, key: key, headers: contentType.map { [("content-type", $0)] } ?? [], body: bytes)
        return response.headers.first(name: "etag") ?? ""
    }

    /// Stores the file at `path` as `key`, in parts when it is larger than `multipartThreshold`.
    /// The object appears whole or not at all (S3 makes a multipart object visible on completion).
    public func putFile(bucket: String, key: String, path: String, contentType: String? = nil) async throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw S3Error(code: "file_unreadable", message: "cannot open \(path) to store it as \(key)")
        }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        if size <= UInt64(multipartThreshold) {
            let data = try handle.readToEnd() ?? Data()
            try await putObject(bucket: bucket, key: key, bytes: Array(data), contentType: contentType)
            return
        }
        let initiated = try await send("POST", bucket: bucket, key: key, query: [("uploads", "")],
                                       headers: contentType.map { [("content-type", $0)] } ?? [])
        guard let uploadId = S3XML.parse(try await collect(initiated))?.value("UploadId"), !uploadId.isEmpty else {
            throw S3Error(code: "bad_answer", message: "the store started a multipart upload of \(key) without an UploadId")
        }
        do {
            var parts: [(Int, String)] = []
            var number = 1
            while let data = try handle.read(upToCount: max(partSize, 5 << 20)), !data.isEmpty {
                let response = try await send("PUT", bucket: bucket, key: key,
                                              query: [("partNumber", String(number)), ("uploadId", uploadId)], body: Array(data))
                parts.append((number, response.headers.first(name: "etag") ?? ""))
                number += 1
            }
            let body = "<CompleteMultipartUpload>"
                + parts.map { "<Part><PartNumber>\($0.0)</PartNumber><ETag>\(S3XML.escape($0.1))</ETag></Part>" }.joined()
                + "</CompleteMultipartUpload>"
            let completed = try await send("POST", bucket: bucket, key: key, query: [("uploadId", uploadId)],
                                           headers: [("content-type", "application/xml")], body: Array(body.utf8))
            // S3 may answer 200 with an <Error> document when completion fails late.
            let answer = try await collect(completed)
            if let root = S3XML.parse(answer), root.name == "Error" {
                throw S3Error(code: root.value("Code") ?? "InternalError", message: root.value("Message") ?? "multipart completion failed", status: 200)
            }
        } catch {
            _ = try? await send("DELETE", bucket: bucket, key: key, query: [("uploadId", uploadId)])
            throw error
        }
    }

    /// The object's bytes, all of them or `range` (`bytes=first-last`, as HTTP's Range header).
    public func getObject(bucket: String, key: String, range: String? = nil) async throws -> Object {
        let response = try await send("GET", bucket: bucket, key: key, headers: range.map { [("range", $0)] } ?? [])
        return Object(status: Int(response.status.code), contentLength: response.headers.first(name: "content-length").flatMap { Int64($0) },
                      contentRange: response.headers.first(name: "content-range"), contentType: response.headers.first(name: "content-type"),
                      body: response.body)
    }

    /// The whole object in memory, at most `limit` bytes.
    public func getBytes(bucket: String, key: String, limit: Int = 64 << 20) async throws -> [UInt8] {
        let object = try await getObject(bucket: bucket, key: key)
        return Array(buffer: try await object.body.collect(upTo: limit))
    }

    /// A byte range of the object in memory (`bytes=first-last`) with the status it came with
    /// (206 when the store honoured the range).
    public func getRange(bucket: String, key: String, range: String, limit: Int = 64 << 20) async throws -> (status: Int, bytes: [UInt8]) {
        let object = try await getObject(bucket: bucket, key: key, range: range)
        return (object.status, Array(buffer: try await object.body.collect(upTo: limit)))
    }

    /// The object's size and ETag; nil when there is no such object.
    public func headObject(bucket: String, key: String) async throws -> ObjectInfo? {
        do {
            let response = try await send("HEAD", bucket: bucket, key: key)
            return ObjectInfo(size: response.headers.first(name: "content-length").flatMap { Int64($0) } ?? 0,
                              etag: response.headers.first(name: "etag") ?? "", contentType: response.headers.first(name: "content-type"))
        } catch let error as S3Error where error.isNotFound {
            return nil
        }
    }

    /// Removes the object; one that is not there is not an error (S3's own rule).
    public func deleteObject(bucket: String, key: String) async throws {
        do {
            _ = try await send("DELETE", bucket: bucket, key: key)
        } catch let error as S3Error where error.code == "NoSuchKey" {
            return
        }
    }

    /// One page (at most `maxKeys`) of the keys under `prefix`, in key order (ListObjectsV2).
    public func listObjects(bucket: String, prefix: String, delimiter: String? = nil, continuationToken: String? = nil,
                            maxKeys: Int = 1000) async throws -> Listing {
        var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(maxKeys))]
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try await send("GET", bucket: bucket, key: nil, query: query)
        guard let root = S3XML.parse(try await collect(response)), root.name == "ListBucketResult" else {
            throw S3Error(code: "bad_answer", message: "the store's listing of \(bucket)/\(prefix) is not a ListBucketResult")
        }
        let objects = root.all("Contents").map {
            Listing.Object(key: $0.value("Key") ?? "", size: Int64($0.value("Size") ?? "") ?? 0, etag: $0.value("ETag") ?? "",
                           lastModified: $0.value("LastModified").flatMap(Self.parseTimestamp))
        }
        let truncated = root.value("IsTruncated") == "true"
        return Listing(objects: objects, commonPrefixes: root.all("CommonPrefixes").compactMap { $0.value("Prefix") },
                       nextContinuationToken: truncated ? root.value("NextContinuationToken") : nil)
    }

    /// An ISO 8601 instant as listings write it (`2026-11-27T12:00:00.000Z`; stores differ in
    /// how many fraction digits they give, s3api six), to the second.
    static func parseTimestamp(_ text: String) -> Date? {
        guard text.utf8.count >= 19, text.hasSuffix("Z") else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: String(text.prefix(19)) + "Z")
    }

    /// A URL anyone holding it may GET the object with, for `expires` seconds.
    public func presignedGetURL(bucket: String, key: String, expires: Int) -> String {
        let path = "/\(bucket)/\(key)"
        let query = signer.presignedQuery(method: "GET", path: path, host: hostHeader, expires: expires, date: now())
        return base + SigV4Signer.canonicalPath(path) + "?" + SigV4Signer.canonicalQuery(query)
    }

    // MARK: Requests

    private var hostHeader: String {
        let host = endpoint.host ?? "localhost"
        guard let port = endpoint.port, !(endpoint.scheme == "http" && port == 80), !(endpoint.scheme == "https" && port == 443) else { return host }
        return "\(host):\(port)"
    }

    private var base: String { "\(endpoint.scheme ?? "http")://\(hostHeader)" }

    /// Signs and sends one request; a status outside 2xx is an `S3Error` with the store's code.
    private func send(_ method: String, bucket: String, key: String?, query: [(String, String)] = [],
                      headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> HTTPClientResponse {
        let path = "/\(bucket)" + (key.map { "/\($0)" } ?? "")
        var signed = SigV4Signer.Request(method: method, path: path, query: query, headers: [("host", hostHeader)] + headers)
        let payloadHash = body.map { SigV4Signer.payloadHash($0) } ?? SigV4Signer.emptyPayloadHash
        _ = signer.sign(&signed, payloadHash: payloadHash, date: now())
        let queryString = SigV4Signer.canonicalQuery(query)
        var request = HTTPClientRequest(url: base + SigV4Signer.canonicalPath(path) + (queryString.isEmpty ? "" : "?" + queryString))
        request.method = .init(rawValue: method)
        for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout)
        } catch {
            throw S3Error(code: "unreachable", message: "\(method) \(path) at \(base) failed: \(error)")
        }
        guard (200..<300).contains(Int(response.status.code)) else {
            let text = (try? await collect(response)) ?? Data()
            let root = S3XML.parse(text)
            let code = root?.value("Code") ?? (response.status.code == 404 ? "NoSuchKey" : "HTTP\(response.status.code)")
            throw S3Error(code: code, message: root?.value("Message") ?? "\(method) \(path): \(response.status)", status: Int(response.status.code))
        }
        return response
    }

    private func collect(_ response: HTTPClientResponse) async throws -> Data {
        Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
    }
}
