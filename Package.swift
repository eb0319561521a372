// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "hearclear",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hearclear", targets: ["hearclear"]),
        .executable(name: "hearclear-bench", targets: ["hearclear-bench"]),
        // The typed client of API/openapi.yaml, for Swift apps and servers (README, "HearClearClient").
        .library(name: "HearClearClient", targets: ["HearClearClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(name: "LoudnessCore"),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // KissFFT (BSD, Debian's libkissfft-dev): the FFT of the tone calibration. No pkgConfig:
        // kissfft-float.pc's cflags are -D flags SwiftPM refuses with a warning (both merely restate
        // the header's defaults); shim.h includes <kissfft/kiss_fftr.h> from the system path instead.
        .systemLibrary(name: "CKissFFT", providers: [.apt(["libkissfft-dev"])]),
        // OpenBLAS's CBLAS (BSD-3-Clause, Debian's libopenblas-serial-dev): the AudioSet model's matrix products.
        .systemLibrary(name: "COpenBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-serial-dev"])]),
        // libsamplerate (BSD-2-Clause, Debian's libsamplerate0-dev): any rate to the model's 16 kHz.
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        // The learned sound character: YAMNet's log-mel front end, an interpreter of its 8-bit ONNX
        // export and the AudioSet classes mapped to HearClear's (docs/ARCHITECTURE.md, "What kind of loud").
        .target(name: "AudioClassification", dependencies: ["LoudnessCore", "COpenBLAS", "CSampleRate", "CKissFFT"]),
        .target(
            name: "AudioMetering", dependencies: ["LoudnessCore", "CSndFile", "CKissFFT", "AudioClassification"]),
        .executableTarget(name: "audiometer-bench", dependencies: ["AudioMetering", "AudioClassification"]),
        // The sound character's features and labels of audio files, one JSON line each, for
        // scripts/sound-character/ (tuning and evaluation on synthetic audio).
        .executableTarget(name: "sound-character-eval", dependencies: ["AudioMetering", "AudioClassification"]),
        .executableTarget(name: "judge-bench", dependencies: ["LoudnessCore"]),
        // Test-only: in-memory encoding of test audio (TestAudioEncoder), for the metering and server tests.
        .target(name: "AudioTestSupport", dependencies: ["CSndFile"]),
        // The values that cross from storage to the engine and on to HTTP: venues, check-ins as
        // submitted and stored, cells, bands, reports, calibrations, admin rows. No SQL, no I/O.
        .target(name: "HearClearModel", dependencies: ["LoudnessCore"]),
        // PostgreSQL only: SQL in folders by concern, the queue, the embedded cluster, migrations.
        .target(
            name: "HearClearStore",
            dependencies: [
                "HearClearModel",
                "LoudnessCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "HearClearTestSupport",
            dependencies: [
                "HearClearEngine",
                "HearClearModel",
                "HearClearStore",
                "LoudnessCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Test-only: the application in process (router or live) on a test database, the built
        // executables run as processes, test audio; shared by the server's and the commands' tests.
        .target(
            name: "HearClearServerTestSupport",
            dependencies: [
                "HearClearServer",
                "HearClearEngine",
                "HearClearModel",
                "HearClearStore",
                "HearClearTestSupport",
                "AudioTestSupport",
                "CSndFile",
                "LoudnessCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // No HTTP: the aggregation worker, intake, the loudness reads, devices, configuration.
        .target(
            name: "HearClearEngine",
            dependencies: [
                "HearClearModel",
                "HearClearStore",
                "LoudnessCore",
                "AudioMetering",
                "AudioClassification",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // What the API and the admin share: the request context, problem documents, body limits.
        .target(
            name: "HearClearHTTP",
            dependencies: [
                "HearClearModel",
                "AudioMetering",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // /farmer: its pages, sessions, sign-in, forms; reads and acts through the engine.
        .target(
            name: "HearClearAdmin",
            dependencies: [
                "HearClearEngine",
                "HearClearHTTP",
                "HearClearModel",
                "LoudnessCore",
                "AudioMetering",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The pages for people at /: find a quiet place, a venue's week, "this was wrong" (no JavaScript).
        .target(
            name: "HearClearPages",
            dependencies: [
                "HearClearEngine",
                "HearClearHTTP",
                "HearClearModel",
                "LoudnessCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // HTTP: /api/v1, /api/v2, operations, middleware, connection limits; mounts the admin and the pages.
        .target(
            name: "HearClearServer",
            dependencies: [
                "HearClearAdmin",
                "HearClearPages",
                "HearClearEngine",
                "HearClearHTTP",
                "HearClearModel",
                "LoudnessCore",
                "AudioMetering",
                "AudioClassification",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        // The typed client: swift-openapi-generator's types and client of API/openapi.yaml, generated
        // by `make generate` (Tools/generate-client) and committed in Generated/, and a little by hand.
        .target(
            name: "HearClearClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // What both executables share: the database options and session, logging, progress, the
        // settings' flags, the client's answer capture.
        .target(
            name: "HearClearCLI",
            dependencies: [
                "HearClearEngine",
                "HearClearModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The binary an operator ships: serve, migrate, meter, calibrate, export, recompute, devices.
        .executableTarget(
            name: "hearclear",
            dependencies: [
                "HearClearCLI",
                "HearClearClient",
                "HearClearEngine",
                "HearClearModel",
                "HearClearServer",
                "AudioMetering",
                "LoudnessCore",
                "AudioClassification",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The developers' tools: load generators and the simulated city (README, "Benchmarks").
        .executableTarget(
            name: "hearclear-bench",
            dependencies: [
                "HearClearCLI",
                "HearClearClient",
                "HearClearEngine",
                "HearClearModel",
                "LoudnessCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "LoudnessCoreTests", dependencies: ["LoudnessCore"]),
        .testTarget(name: "HearClearClientTests", dependencies: ["HearClearClient"]),
        .testTarget(
            name: "AudioMeteringTests",
            dependencies: ["AudioMetering", "AudioClassification", "AudioTestSupport", "CSndFile"]),
        .testTarget(
            name: "AudioClassificationTests", dependencies: ["AudioClassification", "AudioTestSupport", "LoudnessCore"]),
        .testTarget(
            name: "HearClearStoreTests",
            dependencies: [
                "HearClearModel",
                "HearClearStore",
                "HearClearTestSupport",
                "LoudnessCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "HearClearEngineTests",
            dependencies: [
                "HearClearEngine",
                "HearClearModel",
                "HearClearStore",
                "HearClearTestSupport",
                "LoudnessCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HearClearServerTests",
            dependencies: [
                "HearClearServer",
                "HearClearServerTestSupport",
                "HearClearAdmin",
                "HearClearPages",
                "HearClearHTTP",
                "HearClearModel",
                "HearClearEngine",
                "LoudnessCore",
                "HearClearStore",
                "HearClearTestSupport",
                "AudioMetering",
                "AudioTestSupport",
                "HearClearClient",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The commands of both executables, run as processes.
        .testTarget(
            name: "HearClearCommandTests",
            dependencies: [
                "HearClearServerTestSupport",
                "HearClearServer",
                "HearClearEngine",
                "HearClearModel",
                "HearClearTestSupport",
                "LoudnessCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ]
)
