import Foundation
import Testing
@testable import TilawaS3
import TilawaTestSupport

/// The SigV4 signer against two independent references: the AWS Signature Version 4 test
/// suite (committed with its licence under `Tests/vectors/aws4_testsuite`) and botocore's S3
/// client signing the requests Tilawa makes, at a frozen instant.
@Suite("SigV4: the AWS test suite and botocore's signer agree with ours")
struct SigV4Tests {
    static let suite = packageRoot.appendingPathComponent("Tests/vectors/aws4_testsuite")

    static var cases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: suite.path)) ?? [])
            .filter { !$0.contains(".") && $0 != "LICENSE" && $0 != "NOTICE" }.sorted()
    }

    /// A `.req` file: request line, headers (a line starting with white space continues the
    /// value before it), a blank line, the body.
    struct Vector {
        var method = "", path = "", query: [(String, String)] = [], headers: [(String, String)] = [], body = Data()

        init(_ text: String) {
            let (head, body) = text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, "")
            self.body = Data(body.utf8)
            var lines = head.components(separatedBy: "\n")
            let request = lines.removeFirst().split(separator: " ")
            method = String(request[0])
            let target = request.dropFirst().dropLast().joined(separator: " ")
            let (path, query) = split(target)
            self.path = path
            self.query = query
            for line in lines {
                if line.first == " " || line.first == "\t", let last = headers.popLast() {
                    headers.append((last.0, last.1 + "\n" + line))
                } else if let colon = line.firstIndex(of: ":") {
                    headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
                }
            }
        }
    }

    @Test("Every case of the AWS SigV4 test suite: canonical request, string to sign, Authorization", arguments: cases)
    func awsSuite(_ name: String) throws {
        func read(_ ext: String) throws -> String {
            try String(contentsOf: Self.suite.appendingPathComponent("\(name)/\(name).\(ext)"), encoding: .utf8)
        }
        let vector = Vector(try read("req"))
        let token = name == "get-vanilla-with-session-token" ? "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267" : nil
        let signer = SigV4Signer(credentials: S3Credentials(accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                                            sessionToken: token), region: "us-east-1", service: "service")
        var request = SigV4Signer.Request(method: vector.method, path: vector.path, query: vector.query, headers: vector.headers)
        let signature = signer.sign(&request, payloadHash: SigV4Signer.payloadHash(vector.body), date: try #require(instant("20150830T123600Z")),
                                    contentHashHeader: false)
        #expect(signature.canonicalRequest == (try read("creq")))
        #expect(signature.stringToSign == (try read("sts")))
        #expect(signature.authorization == (try read("authz")))
    }

    @Test("The suite is all there (a missing folder cannot pass as no case)")
    func suitePresent() {
        #expect(Self.cases.count == 25, "\(Self.cases)")
    }

    @Test("botocore's S3 client at a frozen instant: every request Tilawa makes (paths and queries that need encoding, a session token) and presigned GETs")
    func botocore() async throws {
        let frozen = "20261127T093600Z"
        let result = try await runProcess(packageRoot.appendingPathComponent(".venv-test/bin/python").path,
                                          [packageRoot.appendingPathComponent("Tests/s3/botocore_sign.py").path, "127.0.0.1:9000", frozen])
        try #require(result.status == 0, "\(result.stderr) — run `make test-venv` first")
        let lines = result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 12)
        let date = try #require(instant(frozen))
        for line in lines {
            let op = line["op"] as? String ?? "?"
            let url = try #require(URLComponents(string: line["url"] as? String ?? ""))
            let (path, query) = split(url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? ""))
            if op == "presign" {
                var items = query
                let theirs = items.first { $0.0 == "X-Amz-Signature" }?.1
                items.removeAll { $0.0.hasPrefix("X-Amz-") }
                let signer = SigV4Signer(credentials: S3Credentials(accessKey: "tilawa:tester", secretKey: "testing/secret+key"), region: "us-east-1")
                let ours = signer.presignedQuery(method: "GET", path: path, query: items, host: "127.0.0.1:9000", expires: 900, date: date)
                #expect(ours.first { $0.0 == "X-Amz-Signature" }?.1 == theirs, "\(op) \(path)")
                #expect(Set(ours.map { "\($0.0)=\($0.1)" }) == Set(query.map { "\($0.0)=\($0.1)" }), "\(op): the same query items")
                continue
            }
            let authorization = try #require(line["authorization"] as? String)
            let signedNames = Set(authorization.components(separatedBy: "SignedHeaders=").last?.components(separatedBy: ",").first?
                .split(separator: ";").map(String.init) ?? [])
            let sent = (line["headers"] as? [[String]] ?? []).map { ($0[0], $0[1]) }
            let headers = [("host", "127.0.0.1:9000")] + sent.filter { signedNames.contains($0.0.lowercased()) }
            let payload = try #require(sent.first { $0.0.lowercased() == "x-amz-content-sha256" }?.1)
            let token = sent.first { $0.0.lowercased() == "x-amz-security-token" }?.1
            let signer = SigV4Signer(credentials: S3Credentials(accessKey: "tilawa:tester", secretKey: "testing/secret+key", sessionToken: token),
                                     region: "us-east-1")
            var request = SigV4Signer.Request(method: line["method"] as? String ?? "", path: path, query: query, headers: headers)
            #expect(signer.sign(&request, payloadHash: payload, date: date).authorization == authorization, "\(op)")
        }
    }

    @Test("Encoding: RFC 3986's unreserved set stays, everything else is %XX in upper case, once")
    func encoding() {
        #expect(SigV4Signer.encode("a-b_c.d~e") == "a-b_c.d~e")
        #expect(SigV4Signer.encode("a b+c/d=e%f") == "a%20b%2Bc%2Fd%3De%25f")
        #expect(SigV4Signer.encode("ሴ") == "%E1%88%B4")
        #expect(SigV4Signer.canonicalPath("/bucket/a b/../x") == "/bucket/a%20b/../x", "S3 keeps dot segments")
        #expect(SigV4Signer.canonicalQuery([("b", "2"), ("a", "z"), ("a", "y"), ("uploads", "")]) == "a=y&a=z&b=2&uploads=")
    }
}

/// The path and the query items of a request target, each percent-decoded.
func split(_ target: String) -> (String, [(String, String)]) {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
    guard parts.count == 2, !parts[1].isEmpty else { return (path, []) }
    let query = parts[1].split(separator: "&").map { pair -> (String, String) in
        let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(halves[0]).removingPercentEncoding ?? String(halves[0])
        let value = halves.count == 2 ? (String(halves[1]).removingPercentEncoding ?? String(halves[1])) : ""
        return (name, value)
    }
    return (path, query)
}

/// `YYYYMMDDTHHMMSSZ` as an instant.
func instant(_ text: String) -> Date? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(secondsFromGMT: 0)
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    return formatter.date(from: text)
}
