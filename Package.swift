// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "tilawa",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tilawa", targets: ["tilawa"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-configuration", exact: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", exact: "1.46.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
    ],
    targets: [
        // C libraries. Each module map's header also wraps the macros Swift cannot import
        // (AVERROR(EAGAIN), AVERROR_EOF, the variadic ope_encoder_ctl requests) in
        // static inline functions.
        .systemLibrary(name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat"),
        .systemLibrary(name: "COpusEnc", path: "Sources/COpusEnc", pkgConfig: "libopusenc"),
        .systemLibrary(name: "CEBUR128", path: "Sources/CEBUR128", pkgConfig: "libebur128"),
        .systemLibrary(name: "CALSA", path: "Sources/CALSA", pkgConfig: "alsa"),
        // System calls Glibc declares only under _GNU_SOURCE (renameat2 with RENAME_NOREPLACE).
        .target(name: "CFileShims"),

        // The programme's rules as pure values and functions: no I/O, no clock reads.
        .target(name: "TilawaCore"),
        // Tanzil's Quran text (embedded at build time from data/quran/), its index, ayah ranges.
        .target(name: "TilawaQuran", plugins: ["EmbedQuranText"]),
        // Decoding, analysis, Ogg Opus encoding, ALSA capture: the only place that touches the C modules.
        .target(name: "TilawaAudio", dependencies: ["CFFmpeg", "COpusEnc", "CEBUR128", "CALSA", "TilawaCore"]),
        // SQLite (GRDB), migrations, records, the artifact file store, programme files.
        .target(
            name: "TilawaStore",
            dependencies: [
                "TilawaCore", "TilawaQuran", "CFileShims",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ]
        ),
        // S3-compatible object storage: the SigV4 signer, the client, and the artifact storage on it.
        .target(
            name: "TilawaS3",
            dependencies: [
                "TilawaStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The PostgreSQL engine (DESIGN §13): the pool of connections and the rules' transactions.
        .target(
            name: "TilawaPostgres",
            dependencies: [
                "TilawaStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The services: ingest pipeline, encode jobs, configuration, HTTP.
        .target(
            name: "TilawaDaemon",
            dependencies: [
                "TilawaCore", "TilawaAudio", "TilawaStore", "TilawaQuran", "CFileShims", "TilawaS3", "TilawaPostgres",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 for FCM's service-account assertion.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // A stream APNs closed unprocessed (a GOAWAY) is told apart by its error.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["Configuration/CONFIGURATION.md"],
            plugins: ["EmbedOpenAPI", "EmbedDesk"]
        ),
        // The build-time tool that embeds openapi/openapi.yaml in TilawaDaemon, and its plugin.
        .executableTarget(name: "openapi-embed"),
        .plugin(name: "EmbedOpenAPI", capability: .buildTool(), dependencies: ["openapi-embed"]),
        // The build-time tool that embeds data/quran/quran-uthmani.txt in TilawaQuran, and its plugin.
        .executableTarget(name: "text-embed"),
        .plugin(name: "EmbedQuranText", capability: .buildTool(), dependencies: ["text-embed"]),
        // The build-time tool that embeds the coach's desk (web/desk/) in TilawaDaemon, and its plugin.
        .executableTarget(name: "desk-embed"),
        .plugin(name: "EmbedDesk", capability: .buildTool(), dependencies: ["desk-embed"]),
        .executableTarget(
            name: "tilawa",
            dependencies: [
                "TilawaAudio", "TilawaCore", "TilawaStore", "TilawaDaemon", "TilawaS3", "TilawaPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Real processes, scratch folders and fixture paths, shared by the test targets.
        .target(name: "TilawaTestSupport", dependencies: ["TilawaStore", "TilawaPostgres",
                                                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                    .product(name: "GRDB", package: "GRDB.swift"),
                                                    .product(name: "Logging", package: "swift-log")],
                path: "Tests/TilawaTestSupport"),
        .testTarget(name: "TilawaCoreTests", dependencies: ["TilawaCore"]),
        .testTarget(name: "TilawaAudioTests", dependencies: ["TilawaAudio", "TilawaCore", "TilawaTestSupport"]),
        .testTarget(name: "TilawaStoreTests", dependencies: ["TilawaStore", "TilawaCore", "TilawaQuran", "TilawaPostgres", "TilawaTestSupport",
                                                             .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "TilawaQuranTests", dependencies: ["TilawaQuran"]),
        // Run by `make test-postgres` (TILAWA_TEST_POSTGRES=1), each suite on its own throw-away server.
        .testTarget(name: "TilawaPostgresTests", dependencies: ["TilawaPostgres", "TilawaTestSupport",
                                                                .product(name: "PostgresNIO", package: "postgres-nio"),
                                                                .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "TilawaS3Tests", dependencies: ["TilawaS3", "TilawaTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                                                          .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .testTarget(
            name: "TilawaDaemonTests",
            dependencies: ["TilawaDaemon", "TilawaStore", "TilawaAudio", "TilawaCore", "TilawaQuran", "TilawaTestSupport", "TilawaPostgres", "TilawaS3",
                           .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
        // The `tilawa` binary as a process: every command, its output and its exit codes.
        .testTarget(
            name: "TilawaCommandLineTests",
            dependencies: ["TilawaDaemon", "TilawaStore", "TilawaAudio", "TilawaCore", "TilawaTestSupport", "TilawaS3",
                           .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "_CryptoExtras", package: "swift-crypto"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
