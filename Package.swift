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
    ],
    targets: [
        // C libraries. Each module map's header also wraps the macros Swift cannot import
        // (AVERROR(EAGAIN), AVERROR_EOF, the variadic ope_encoder_ctl requests) in
        // static inline functions.
        .systemLibrary(name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat"),
        .systemLibrary(name: "COpusEnc", path: "Sources/COpusEnc", pkgConfig: "libopusenc"),
        .systemLibrary(name: "CEBUR128", path: "Sources/CEBUR128", pkgConfig: "libebur128"),

        .target(
            name: "TilawaCore",
            path: "Sources/TilawaCore"
        ),
        .target(
            name: "TilawaAudio",
            dependencies: ["CFFmpeg", "COpusEnc", "CEBUR128", "TilawaCore"],
            path: "Sources/TilawaAudio"
        ),
        .executableTarget(
            name: "tilawa",
            dependencies: [
                "TilawaAudio",
                "TilawaCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/tilawa"
        ),
        .testTarget(name: "TilawaCoreTests", dependencies: ["TilawaCore"]),
        .testTarget(name: "TilawaAudioTests", dependencies: ["TilawaAudio", "TilawaCore"]),
    ],
    swiftLanguageModes: [.v6]
)
