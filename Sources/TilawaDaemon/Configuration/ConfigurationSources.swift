import Configuration

/// The providers a setting is looked up in, highest priority first: `TILAWA_*` environment
/// variables, then the YAML file.
///
/// Lookups go to each provider directly instead of through a `ConfigReader`: the reader's
/// non-throwing getters return the default when a value does not convert (a bad
/// `TILAWA_HTTP_PORT` would be ignored) and none of its getters says which provider a
/// value came from, which every error message names.
struct ConfigurationSources: Sendable {
    /// A value found for a key: its text, where it came from, and its typed content.
    struct Setting: Sendable {
        /// The value as written (environment) or as the YAML scalar reads.
        let text: String
        /// The environment variable's name or the file's path.
        let origin: String
        /// The value converted by the provider to the requested type; nil when it does not convert.
        let content: ConfigContent?
    }

    /// `EnvironmentVariablesProvider` keyed with the `tilawa` prefix, so that `http.port`
    /// is looked up as `TILAWA_HTTP_PORT`.
    let environment: KeyMappingProvider<EnvironmentVariablesProvider>
    /// The YAML file, if one was read.
    let file: ConfigurationFile?

    init(environment: [String: String], file: ConfigurationFile?) {
        self.environment = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "tilawa")
        self.file = file
    }

    /// The value of `key` from the first source that sets it, converted to `type`.
    func setting(_ key: String, as type: ConfigType) -> Setting? {
        let configKey = AbsoluteConfigKey(key.split(separator: ".").map(String.init))
        if let found = Self.lookup(configKey, as: type, origin: nil, in: { try environment.value(forKey: $0, type: $1) }) {
            return found
        }
        if let file, let snapshot = file.snapshot, !file.nullKeys.contains(key) {
            return Self.lookup(configKey, as: type, origin: file.path, in: { try snapshot.value(forKey: $0, type: $1) })
        }
        return nil
    }

    /// Looks `key` up as a string (for its text and presence) and as `type` (for its value).
    ///
    /// `origin` nil names the source by the provider's encoded key, which for the
    /// environment provider is the variable's name.
    private static func lookup(
        _ key: AbsoluteConfigKey,
        as type: ConfigType,
        origin: String?,
        in value: (AbsoluteConfigKey, ConfigType) throws -> LookupResult
    ) -> Setting? {
        let textResult: LookupResult
        do {
            textResult = try value(key, .string)
        } catch {
            // Only a list or mapping fails to read as a string, and the file check rejects those first.
            return Setting(text: "", origin: origin ?? key.description, content: nil)
        }
        guard let found = textResult.value, case .string(let text) = found.content else { return nil }
        let content = type == .string ? found.content : (try? value(key, type))?.value?.content
        return Setting(text: text, origin: origin ?? textResult.encodedKey, content: content)
    }
}
