import Foundation
import Testing
@testable import TilawaDaemon

@Suite("Configuration documentation and catalogue")
struct ConfigurationDocumentationTests {
    static let samplePath = configurationRepositoryRoot + "/config/tilawa.yaml"

    @Test("the shipped config/tilawa.yaml loads and equals the defaults")
    func sampleEqualsDefaults() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        #expect(try scratch.load(file: Self.samplePath) == scratch.defaults())
        // Its empty state_dir leaves systemd's directory in charge.
        #expect(try scratch.load(file: Self.samplePath, environment: ["STATE_DIRECTORY": "/var/lib/tilawa"])
            == scratch.defaults(stateDirectory: "/var/lib/tilawa"))
        // Read from the default location as well.
        try scratch.write("config/tilawa.yaml", String(decoding: try Data(contentsOf: URL(fileURLWithPath: Self.samplePath)), as: UTF8.self))
        #expect(try scratch.load() == scratch.defaults())
    }

    @Test("the shipped config/tilawa.yaml lists every key, each with a comment")
    func sampleListsEveryKey() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.samplePath))
        let file = try ConfigurationFile.parse(data, path: Self.samplePath)
        #expect(file.keys == Set(ConfigurationKey.all.map(\.name)))
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        // A nested section's header (`  apns:` of `push.apns.key_file`) is not a setting.
        let nested = Set(ConfigurationKey.all.compactMap { key -> String? in
            let parts = key.name.split(separator: ".")
            return parts.count > 2 ? parts[1] + ":" : nil
        })
        let settingLines = lines.enumerated().filter { _, line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return line.hasPrefix("  ") && !trimmed.hasPrefix("#") && !nested.contains(trimmed) || line.hasPrefix("state_dir")
        }
        #expect(settingLines.count == ConfigurationKey.all.count)
        for (index, line) in settingLines {
            #expect(index > 0 && lines[index - 1].trimmingCharacters(in: .whitespaces).hasPrefix("#"), "no comment above \(line)")
        }
    }

    @Test("the README's and CONFIGURATION.md's tables are the catalogue's, row for row (make config-docs writes them)")
    func markdownTables() throws {
        let generated = ConfigurationKey.markdownTable
        #expect(generated.split(separator: "\n").count == ConfigurationKey.all.count + 2)
        for file in ["/README.md", "/Sources/TilawaDaemon/Configuration/CONFIGURATION.md"] {
            let text = try String(contentsOfFile: configurationRepositoryRoot + file, encoding: .utf8)
            let table = try #require(ConfigurationKey.markdownTable(in: text), "\(file) has no configuration table")
            let rows = table.split(separator: "\n").map(String.init), expected = generated.split(separator: "\n").map(String.init)
            // Name the first row that differs (run `make config-docs` after changing the catalogue).
            let first = zip(rows, expected).first { $0 != $1 }
            #expect(table == generated, "\(file): \(first.map { "\($0.0)\n  the catalogue's: \($0.1)" } ?? "\(rows.count) rows, the catalogue has \(expected.count)")")
        }
        // The check can fail: a row changed in a copy is found.
        let changed = generated.replacingOccurrences(of: "| `http.port` | `TILAWA_HTTP_PORT` | `8080` |", with: "| `http.port` | `TILAWA_HTTP_PORT` | `80` |")
        #expect(ConfigurationKey.markdownTable(in: "intro\n\n" + changed + "\n\nafter") != generated)
    }

    @Test("the loader reads exactly the catalogue's keys, each once")
    func loaderReadsTheCatalogue() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        var values = try TilawaConfiguration.values(file: nil, environment: [:], workingDirectory: scratch.root)
        _ = try TilawaConfiguration.load(from: &values, environment: [:], workingDirectory: scratch.root)
        #expect(values.readKeys.sorted() == ConfigurationKey.all.map(\.name).sorted())
        #expect(Set(ConfigurationKey.all.map(\.name)).count == ConfigurationKey.all.count)
    }

    @Test("each key's variable is the name swift-configuration's EnvironmentVariablesProvider looks up")
    func environmentNamesMatchTheLibrary() {
        for key in ConfigurationKey.all {
            var values = ConfigurationValues(sources: ConfigurationSources(environment: [key.environmentVariable: "x"], file: nil))
            let setting = values.optionalText(key.name)
            #expect(setting?.origin == key.environmentVariable)
            #expect(setting?.text == "x")
        }
        #expect(ConfigurationKey.all.first { $0.name == "http.max_upload_bytes" }?.environmentVariable == "TILAWA_HTTP_MAX_UPLOAD_BYTES")
    }

    @Test("every numeric key reaches its own field")
    func numericKeysReachTheirFields() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let defaults = scratch.defaults()
        for key in ConfigurationKey.all {
            guard let before = numericField(key.name, of: defaults) else { continue }
            // A different valid value: one more for most keys, one less at the top of a range, half for a ratio.
            let candidates = [before + 1, before - 1, before / 2]
            var reached = false
            for candidate in candidates {
                let text = candidate == candidate.rounded() ? String(Int(candidate)) : String(candidate)
                guard let config = try? scratch.load(environment: [key.environmentVariable: text]) else { continue }
                #expect(numericField(key.name, of: config) == candidate, "\(key.name)")
                // No other numeric field moved.
                for other in ConfigurationKey.all where other.name != key.name {
                    #expect(numericField(other.name, of: config) == numericField(other.name, of: defaults), "\(key.name) moved \(other.name)")
                }
                reached = true
                break
            }
            #expect(reached, "\(key.name)")
        }
    }
}
