// swift-tools-version: 6.2
// The code generator of HearClearClient, apart from the server's package so that building the
// server never builds OpenAPIKit and Yams. Used only by scripts/generate-client.sh (`make generate`
// and the staleness test), which builds it into .build-generator. The version is exact: another
// generator version may write other code, and the committed code would then read as stale.
import PackageDescription

let package = Package(
    name: "generate-client",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3")
    ]
)
