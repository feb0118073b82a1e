import Foundation
import Hummingbird
import Testing
import TilawaCore
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// `METHOD /path/{param}` for every operation of the document.
    static func documentedRoutes(_ yaml: String) -> Set<String> {
        var routes = Set<String>()
        var inPaths = false
        var path: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            guard inPaths else { continue }
            if !line.isEmpty, !line.hasPrefix(" "), !line.hasPrefix("#") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let word = line.trimmingCharacters(in: .whitespaces).dropLast()
                if methods.contains(String(word)) { routes.insert("\(word.uppercased()) \(path)") }
            }
        }
        return routes
    }

    @Test("The router and the document describe the same routes, method for method")
    func routesMatch() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let router = TilawaServer.makeRouter(api: daemon.api)
        // Hummingbird describes paths as `/v1/submissions/{id}`, the document's own notation.
        let normalised = Set(router.routes.map { route -> String in
            let path = "\(route.path)"
            return "\(route.method) \(path.hasPrefix("/") ? path : "/" + path)"
        })
        let documented = Self.documentedRoutes(OpenAPIDocument.yaml)
        #expect(documented.count >= 16)
        #expect(normalised.subtracting(documented).isEmpty, "served but not documented: \(normalised.subtracting(documented).sorted())")
        #expect(documented.subtracting(normalised).isEmpty, "documented but not served: \(documented.subtracting(normalised).sorted())")
    }

    @Test("The document's event types are exactly those the store sends (none documented and never sent)")
    func eventTypesMatch() throws {
        let yaml = OpenAPIDocument.yaml
        let start = try #require(yaml.range(of: "\n    EventType:\n"))
        let enumLine = try #require(yaml[start.upperBound...].range(of: "enum: ["))
        let close = try #require(yaml[enumLine.upperBound...].firstIndex(of: "]"))
        let documented = Set(yaml[enumLine.upperBound..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(documented == Set(EventType.allCases.map(\.rawValue)))
    }

    @Test("The document's message keys are exactly those the English renderer knows")
    func messageKeysMatch() throws {
        let yaml = OpenAPIDocument.yaml
        let start = try #require(yaml.range(of: "\n    MessageKey:\n"))
        let enumLine = try #require(yaml[start.upperBound...].range(of: "enum: ["))
        let close = try #require(yaml[enumLine.upperBound...].firstIndex(of: "]"))
        let documented = Set(yaml[enumLine.upperBound..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(documented == Set(EnglishMessages.keys))
    }

    @Test("The served document is openapi/openapi.yaml as the build embedded it (the EmbedOpenAPI plugin)")
    func embeddedDocumentIsTheFile() throws {
        let file = try String(contentsOf: packageRoot.appendingPathComponent("openapi/openapi.yaml"), encoding: .utf8)
        #expect(OpenAPIDocument.yaml + "\n" == file)
    }
}
