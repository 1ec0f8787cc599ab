// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "vault",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "VaultCore", targets: ["VaultCore"]),
        .library(name: "VaultStores", targets: ["VaultStores"]),
    ],
    targets: [
        // C libraries, found through pkg-config; see scripts/install-deps.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // Item model, errors, the store protocol, secret bytes, the crypto and syscall wrappers.
        .target(name: "VaultCore", dependencies: ["COpenSSL"]),

        // One folder per backend: InMemory/, EncryptedFile/.
        .target(name: "VaultStores", dependencies: ["VaultCore", "COpenSSL"]),

        // Test-only driver that exercises the file store from separate processes
        // (crash safety, concurrent writers, full disks).
        .executableTarget(
            name: "vault-store-tool",
            dependencies: ["VaultCore", "VaultStores"],
            path: "Tests/Helpers/vault-store-tool"
        ),

        .testTarget(name: "VaultCoreTests", dependencies: ["VaultCore"]),
        .testTarget(name: "VaultStoresTests", dependencies: ["VaultCore", "VaultStores", "vault-store-tool"]),
    ],
    swiftLanguageModes: [.v6]
)
