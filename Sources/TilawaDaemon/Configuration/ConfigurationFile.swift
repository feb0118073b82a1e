import Configuration
import Foundation
import Yams

/// The YAML configuration file: its values as a swift-configuration snapshot, checked against the catalogue.
///
/// swift-configuration's `YAMLSnapshot` answers lookups by key but cannot list the keys a
/// file holds, so the file is also composed with Yams to find unknown keys, values of the
/// wrong shape (a list or a mapping where one value belongs) and YAML nulls, which mean
/// "not set here" (`webhook.url:` leaves the default).
struct ConfigurationFile: Sendable {
    /// Where the file was read from (absolute); named in error messages.
    let path: String
    /// The values, or nil for a document with no settings at all (empty or only comments).
    let snapshot: YAMLSnapshot?
    /// Every catalogue key the file mentions, null ones included.
    let keys: Set<String>
    /// Keys the file leaves null (`key:`, `key: ~`, `key: null`): treated as absent.
    let nullKeys: Set<String>

    /// The path `tilawa serve` reads when no `--config` is given, relative to the working directory.
    static let defaultRelativePath = "config/tilawa.yaml"

    /// Reads the file named by `--config` (which must exist), or else `config/tilawa.yaml`
    /// if it exists; nil when neither applies.
    static func locate(explicitPath: String?, workingDirectory: String) throws(ConfigurationError) -> ConfigurationFile? {
        let path = ConfigurationPath.absolute(explicitPath ?? defaultRelativePath, in: workingDirectory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            guard explicitPath == nil else {
                throw ConfigurationError(key: ConfigurationError.fileKey, message: "the file \(path) given with --config does not exist")
            }
            return nil
        }
        guard !isDirectory.boolValue else {
            throw ConfigurationError(key: ConfigurationError.fileKey, message: "\(path) is a directory, not a YAML file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: ConfigurationError.fileKey, message: "cannot read \(path) (check its permissions)")
        }
        return try parse(data, path: path)
    }

    /// Parses and checks `data` as the file at `path`.
    static func parse(_ data: Data, path: String) throws(ConfigurationError) -> ConfigurationFile {
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(key: ConfigurationError.fileKey, message: "\(path) is not UTF-8 text")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(key: ConfigurationError.fileKey, message: "\(path) is not valid YAML: \(describe(error))")
        }
        guard let root else {
            return ConfigurationFile(path: path, snapshot: nil, keys: [], nullKeys: [])
        }
        guard let mapping = root.mapping else {
            throw ConfigurationError(
                key: ConfigurationError.fileKey,
                message: "\(path) must be a mapping of settings (`http:` then `  port: 8080`), not \(shape(of: root))"
            )
        }
        var keys: Set<String> = []
        var nullKeys: Set<String> = []
        try walk(mapping, prefix: nil, path: path, keys: &keys, nullKeys: &nullKeys)
        let snapshot: YAMLSnapshot
        do {
            snapshot = try YAMLSnapshot(data: data.bytes, providerName: path, parsingOptions: .default)
        } catch {
            throw ConfigurationError(key: ConfigurationError.fileKey, message: "\(path) cannot be read as configuration: \(error)")
        }
        return ConfigurationFile(path: path, snapshot: snapshot, keys: keys, nullKeys: nullKeys)
    }

    /// Checks the settings of `mapping`, the section `prefix` names (nil: the file's top), and
    /// the sections nested in it (`push:` then `apns:` then `key_file:`): every leaf is a key of
    /// the catalogue, every mapping a section some key lies in.
    private static func walk(_ mapping: Node.Mapping, prefix: String?, path: String, keys: inout Set<String>,
                             nullKeys: inout Set<String>) throws(ConfigurationError) {
        for (nameNode, value) in mapping {
            let name = try keyName(nameNode, prefix: prefix, path: path)
            if ConfigurationKey.byName[name] != nil {
                try checkLeaf(value, key: name, path: path, keys: &keys, nullKeys: &nullKeys)
            } else if ConfigurationKey.all.contains(where: { $0.name.hasPrefix(name + ".") }) {
                if value.null != nil { continue }
                guard let section = value.mapping else {
                    throw ConfigurationError(
                        key: name,
                        message: "must be a section of settings (`\(name):` then indented `name: value` lines), got \(shape(of: value)) (in \(path))"
                    )
                }
                try walk(section, prefix: name, path: path, keys: &keys, nullKeys: &nullKeys)
            } else {
                let known = prefix.map { section in ConfigurationKey.all.map(\.name).filter { $0.hasPrefix(section + ".") } }
                    ?? ConfigurationKey.sections.sorted() + ConfigurationKey.all.map(\.name)
                throw unknownKey(name, path: path, candidates: known)
            }
        }
    }

    private static func keyName(_ node: Node, prefix: String?, path: String) throws(ConfigurationError) -> String {
        guard let scalar = node.scalar else {
            throw ConfigurationError(key: prefix ?? ConfigurationError.fileKey, message: "has a key that is not a plain name (in \(path))")
        }
        return prefix.map { "\($0).\(scalar.string)" } ?? scalar.string
    }

    private static func checkLeaf(
        _ value: Node, key: String, path: String, keys: inout Set<String>, nullKeys: inout Set<String>
    ) throws(ConfigurationError) {
        guard value.scalar != nil else {
            throw ConfigurationError(key: key, message: "must be a single value, got \(shape(of: value)) (in \(path))")
        }
        keys.insert(key)
        if value.null != nil { nullKeys.insert(key) }
    }

    private static func unknownKey(_ key: String, path: String, candidates: [String]) -> ConfigurationError {
        let hint = ConfigurationKey.suggestion(for: key, among: candidates).map { "; did you mean \($0)?" } ?? "; every key is listed in config/tilawa.yaml and in the README's configuration table"
        return ConfigurationError(key: key, message: "unknown key in \(path)\(hint)")
    }

    private static func shape(of node: Node) -> String {
        switch node {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let scalar): "the single value \(ConfigurationError.quoted(scalar.string))"
        case .alias: "an alias"
        }
    }

    /// One line from a Yams error: where, and what.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? YamlError else { return String(describing: error) }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
            let .composer(context, problem, mark, _):
            let during = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            return "line \(mark.line), column \(mark.column): \(problem)\(during)"
        case let .duplicatedKeysInMapping(duplicates, context):
            return "duplicate key \(duplicates.sorted().joined(separator: ", ")) in the mapping at line \(context.mark.line)"
        case let .reader(problem, _, _, _):
            return problem
        default:
            return String(describing: error)
        }
    }
}
