// swift-tools-version:6.0
// An example program on VaultClient: it depends on the vault package by path (SwiftPM fetches
// nothing). Built by scripts/test: swift build --package-path Examples/SupabaseSession
import PackageDescription

let package = Package(
    name: "vault-supabase-example",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "vault", path: "../..")],
    targets: [
        .executableTarget(
            name: "vault-supabase-example",
            dependencies: [.product(name: "VaultClient", package: "vault"), .product(name: "VaultTokenSource", package: "vault")],
            path: "Sources"
        ),
    ],
    swiftLanguageModes: [.v6]
)
