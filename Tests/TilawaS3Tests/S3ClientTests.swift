import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
@testable import TilawaS3
import TilawaTestSupport

/// The S3 client against a real S3 implementation that checks signatures (OpenStack Swift's
/// s3api with tempauth, `S3TestServer`).
@Suite("S3 client against Swift's s3api", .heavy)
struct S3ClientTests {
    /// The run's shared server (`S3TestServer.shared()`), a bucket of this test's own and a scratch folder.
    private func withServer(_ body: (S3TestServer, S3Client, String, ScratchDirectory) async throws -> Void) async throws {
        let server = try await S3TestServer.shared()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let client = S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey),
                              region: server.region)
        let bucket = S3TestServer.uniqueBucket("tilawa-test")
        try await client.createBucket(bucket)
        try await body(server, client, bucket, scratch)
    }

    @Test("Put, head, a byte range, the whole object, a listing in pages, delete (twice)")
    func roundTrip() async throws {
        try await withServer { _, client, bucket, _ in
            let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let keys = ["prod/submissions/2026/11/sub_01.opus", "prod/submissions/2026/11/sub 02 ሴ+(x).opus",
                        "prod/submissions/2026/12/sub_03.opus", "prod/feedback/2026/11/fb_01.opus", "other/x.opus"]
            for key in keys { try await client.putObject(bucket: bucket, key: key, bytes: bytes, contentType: "audio/ogg") }
            try await client.createBucket(bucket)  // again: ours already, not an error

            let info = try #require(try await client.headObject(bucket: bucket, key: keys[1]))
            #expect(info.size == 10_000 && info.contentType == "audio/ogg")
            let part = try await client.getObject(bucket: bucket, key: keys[1], range: "bytes=2-5")
            #expect(part.status == 206 && part.contentRange == "bytes 2-5/10000")
            #expect(Array(buffer: try await part.body.collect(upTo: 100)) == Array(bytes[2...5]))
            #expect(try await client.getBytes(bucket: bucket, key: keys[1]) == bytes)

            var listed: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try await client.listObjects(bucket: bucket, prefix: "prod/submissions/", continuationToken: token, maxKeys: 2)
                listed += page.objects.map(\.key)
                #expect(page.objects.allSatisfy { $0.size == 10_000 })
                // When it was written, to the second (the sweep's grace period reads it).
                #expect(page.objects.allSatisfy { abs($0.lastModified?.timeIntervalSinceNow ?? .infinity) < 600 },
                        "\(page.objects.map(\.lastModified))")
                token = page.nextContinuationToken
                pages += 1
            } while token != nil && pages < 10
            #expect(listed == keys[0...2].sorted() && pages == 2, "\(listed) in \(pages) pages")

            try await client.deleteObject(bucket: bucket, key: keys[1])
            try await client.deleteObject(bucket: bucket, key: keys[1])
            #expect(try await client.headObject(bucket: bucket, key: keys[1]) == nil)
            await #expect(throws: S3Error.self) { _ = try await client.getBytes(bucket: bucket, key: keys[1]) }
        }
    }

    @Test("A file past the threshold goes up in 5 MiB parts and comes back whole; a small one in one request")
    func multipart() async throws {
        try await withServer { _, client, bucket, scratch in
            var parted = client
            parted.multipartThreshold = 6 << 20
            parted.partSize = 5 << 20
            let big = scratch.path("big.wav")
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<(12 << 20) + 12_345).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: URL(fileURLWithPath: big))
            try await parted.putFile(bucket: bucket, key: "originals/2026/11/big.wav", path: big, contentType: "audio/wav")
            let info = try #require(try await parted.headObject(bucket: bucket, key: "originals/2026/11/big.wav"))
            #expect(info.size == Int64(bytes.count))
            #expect(info.etag.hasSuffix("-3\""), "three parts: \(info.etag)")
            #expect(try await parted.getBytes(bucket: bucket, key: "originals/2026/11/big.wav") == bytes)

            let small = scratch.path("small.opus")
            try Data(bytes[0..<4096]).write(to: URL(fileURLWithPath: small))
            try await parted.putFile(bucket: bucket, key: "submissions/2026/11/small.opus", path: small)
            let one = try #require(try await parted.headObject(bucket: bucket, key: "submissions/2026/11/small.opus"))
            #expect(one.size == 4096 && !one.etag.contains("-"))
            await #expect(throws: S3Error.self) {
                try await parted.putFile(bucket: bucket, key: "x", path: scratch.path("absent.opus"))
            }
        }
    }

    @Test("Refused: a wrong secret, a clock off by an hour, a tampered or expired presigned URL; a good presigned URL serves the object")
    func refusals() async throws {
        try await withServer { server, client, bucket, _ in
            try await client.putObject(bucket: bucket, key: "submissions/a.opus", bytes: Array("OggS-audio".utf8))

            let wrong = S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey + "x"),
                                 region: server.region)
            do {
                try await wrong.putObject(bucket: bucket, key: "submissions/b.opus", bytes: [1, 2, 3])
                Issue.record("a wrong secret was accepted")
            } catch let error as S3Error {
                #expect(error.code == "SignatureDoesNotMatch" && error.status == 403, "\(error)")
            }
            #expect(try await client.headObject(bucket: bucket, key: "submissions/b.opus") == nil, "nothing stored")

            var skewed = client
            skewed.now = { Date().addingTimeInterval(-3600) }
            do {
                _ = try await skewed.getBytes(bucket: bucket, key: "submissions/a.opus")
                Issue.record("a request dated an hour ago was accepted")
            } catch let error as S3Error {
                #expect(error.status == 403 && error.code == "RequestTimeTooSkewed", "\(error)")
            }

            func fetch(_ url: String) async throws -> (Int, [UInt8]) {
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                return (Int(response.status.code), Array(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            let url = client.presignedGetURL(bucket: bucket, key: "submissions/a.opus", expires: 300)
            let good = try await fetch(url)
            #expect(good.0 == 200 && good.1 == Array("OggS-audio".utf8))
            let tampered = url.replacingOccurrences(of: "submissions/a.opus", with: "submissions/b.opus")
            #expect(try await fetch(tampered).0 == 403)
            var old = client
            old.now = { Date().addingTimeInterval(-600) }
            #expect(try await fetch(old.presignedGetURL(bucket: bucket, key: "submissions/a.opus", expires: 60)).0 == 403, "expired")
        }
    }
}

@Suite("S3 listing timestamps")
struct S3TimestampTests {
    @Test("LastModified with no, three or six fraction digits reads to the second; anything else is nil",
          arguments: [("2026-11-27T12:35:01Z", 1_795_782_901.0), ("2026-11-27T12:35:01.000Z", 1_795_782_901.0),
                      ("2026-11-27T12:35:01.123456Z", 1_795_782_901.0), ("2026-11-27 12:35:01", nil), ("yesterday", nil)] as [(String, Double?)])
    func timestamp(_ text: String, _ expected: Double?) {
        #expect(S3Client.parseTimestamp(text)?.timeIntervalSince1970 == expected)
    }
}
