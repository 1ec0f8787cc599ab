// swift-tools-version:6.0
import PackageDescription

/// The clients (vaultctl, the credential helpers) as static executables: no dynamic loader, no
/// shared libraries to map, relocate and initialise at each start, which took about half of a
/// whole `vaultctl get` (docs/performance.md, "vaultctl as a static executable"). Not position
/// independent: glibc's static-PIE start-up refuses the run path SwiftPM writes into every
/// executable, so the program's own image is at a fixed address (its stack, heap and mappings are
/// still randomised), as in the Go-built `gh` and `op`.
/// Under a sanitizer (`scripts/test --sanitize`, which sets VAULT_SANITIZE) they link dynamically:
/// a fully static executable does not link with the sanitizer runtimes.
let staticClient: [LinkerSetting] = Context.environment["VAULT_SANITIZE"] != nil ? [] :
    [.unsafeFlags(["-static-executable", "-l_FoundationCollections", "-l_FoundationCShims"], .when(platforms: [.linux]))]

let package = Package(
    name: "vault",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "VaultSystem", targets: ["VaultSystem"]),
        .library(name: "VaultCore", targets: ["VaultCore"]),
        .library(name: "VaultCrypto", targets: ["VaultCrypto"]),
        .library(name: "VaultStores", targets: ["VaultStores"]),
        .library(name: "VaultClient", targets: ["VaultClient"]),
        .library(name: "VaultTokenSource", targets: ["VaultTokenSource"]),
        .executable(name: "vaultd", targets: ["vaultd"]),
        .executable(name: "vaultctl", targets: ["vaultctl"]),
        .executable(name: "git-credential-vault", targets: ["git-credential-vault"]),
        .executable(name: "docker-credential-vault", targets: ["docker-credential-vault"]),
    ],
    targets: [
        // C libraries, found through pkg-config; see scripts/install-deps.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),

        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // One libcurl request (curl_easy_setopt is variadic, so Swift cannot call it).
        .target(name: "CCurlShims", dependencies: ["CCurl"]),

        .systemLibrary(
            name: "CGio",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // GDBus for vaultd's Secret Service provider: its bus connection, its objects' one method
        // handler, GVariant's macros and varargs (which Swift cannot call).
        .target(name: "CGDBusShims", dependencies: ["CGio"]),

        // Small C helpers Swift cannot import: SO_PEERCRED's ucred, prctl, posix_spawn with setsid;
        // a constant-time comparison for SecretBytes.
        .target(name: "CVaultShims"),

        // Thin typed wrappers over system calls (the swift-system shape): descriptors, errno with
        // the one EINTR retry, file status, Unix sockets, private directories, inotify watches,
        // threads, locks, randomness, and the storage-event seam the power-loss tests use.
        .target(name: "VaultSystem", dependencies: ["CVaultShims"]),

        // The domain: items, errors, the store protocol, secret bytes, sessions' settings; no
        // libcrypto, so that clients (vaultctl, the credential helpers, VaultClient) do not load it.
        .target(name: "VaultCore", dependencies: ["VaultSystem", "CVaultShims"]),

        // OpenSSL's libcrypto: AES-GCM, scrypt, SHA-256, random keys; the Secret Service's DH,
        // HKDF and AES-CBC. Only the daemon's side (VaultStores, VaultDaemon) imports it.
        .target(name: "VaultCrypto", dependencies: ["VaultSystem", "VaultCore", "COpenSSL"]),

        // One folder per backend: InMemory/, EncryptedFile/, SecretService/.
        .target(name: "VaultStores", dependencies: ["VaultSystem", "VaultCore", "VaultCrypto", "CLibSecret"]),

        // The wire format shared by daemon and clients (docs/protocol.md).
        .target(name: "VaultProtocol", dependencies: ["VaultSystem", "VaultCore"]),

        // Sign-in sessions: token endpoint client (libcurl, through CCurlShims), single-flight refresh.
        .target(name: "VaultTokens", dependencies: ["VaultSystem", "VaultCore", "CCurlShims"]),

        // Remote engines (OpenBao, HashiCorp Vault): their settings, KV v2 and token API over
        // libcurl, and the checks on every answer.
        .target(name: "VaultRemotes", dependencies: ["VaultSystem", "VaultCore", "VaultTokens"]),

        // Spaces: items shared by devices through an engine, end to end encrypted (issue 34).
        .target(name: "VaultSpaces", dependencies: ["VaultCore", "VaultCrypto"]),

        // The daemon: listener, connections, dispatcher.
        .target(name: "VaultDaemon", dependencies: ["VaultSystem", "VaultCore", "VaultCrypto", "VaultStores", "VaultProtocol", "VaultTokens", "VaultRemotes", "VaultSpaces", "CVaultShims", "CGDBusShims"]),

        // The library other programs (and vaultctl) use to talk to vaultd.
        .target(name: "VaultClient", dependencies: ["VaultSystem", "VaultCore", "VaultProtocol", "CVaultShims"]),
        // URLRequest and URLSession: FoundationNetworking (and libcurl) only for programs that use it.
        .target(name: "VaultTokenSource", dependencies: ["VaultClient"]),

        // vaultctl's command table (CommandLine/): every command declared once; the parser, the
        // help text and the shell completions are derived from it.
        .target(name: "VaultCLI", dependencies: ["VaultSystem", "VaultClient", "VaultCore", "CVaultShims"]),

        // The credential helpers git and Docker run (Git/, Docker/), over VaultClient.
        .target(name: "VaultHelpers", dependencies: ["VaultSystem", "VaultClient", "VaultCore"]),

        // Thin executables: parse arguments, call the libraries.
        .executableTarget(name: "vaultd", dependencies: ["VaultDaemon", "VaultCore", "VaultSystem"]),
        .executableTarget(name: "vaultctl", dependencies: ["VaultCLI"], linkerSettings: staticClient),
        .executableTarget(name: "git-credential-vault", dependencies: ["VaultHelpers"], linkerSettings: staticClient),
        .executableTarget(name: "docker-credential-vault", dependencies: ["VaultHelpers"], linkerSettings: staticClient),
        // Prints one shell's completion script (scripts/generate-completions writes completions/).
        .executableTarget(name: "vaultctl-completions", dependencies: ["VaultCLI"]),

        // Benchmark: the daemon's request round trip (scripts/bench runs it).
        .executableTarget(
            name: "vault-bench",
            dependencies: ["VaultClient", "VaultCore", "VaultSystem"],
            path: "Benchmarks/vault-bench"
        ),

        // libFuzzer targets, one per parser of outside input (Fuzz/Targets), and the one binary that
        // runs them (scripts/fuzz builds it with the fuzzer and the address sanitizer); the
        // corpora and regressions are replayed by FuzzRegressionTests in every test run.
        .target(
            name: "VaultFuzzTargets",
            dependencies: ["VaultSystem", "VaultCore", "VaultProtocol", "VaultDaemon", "VaultCLI", "VaultClient", "VaultHelpers", "VaultStores", "VaultCrypto", "VaultTokens", "VaultRemotes", "VaultSpaces", "CGDBusShims"],
            path: "Fuzz/Targets"
        ),
        .executableTarget(name: "vault-fuzz", dependencies: ["VaultFuzzTargets"], path: "Fuzz/vault-fuzz"),

        // Test-only driver that exercises the file store from separate processes
        // (crash safety, concurrent writers, full disks).
        .executableTarget(
            name: "vault-store-tool",
            dependencies: ["VaultSystem", "VaultCore", "VaultCrypto", "VaultStores"],
            path: "Tests/Helpers/vault-store-tool"
        ),

        // Test-only driver: one process of a program sharing VaultAuthStorage with others.
        .executableTarget(
            name: "vault-auth-storage-tool",
            dependencies: ["VaultClient"],
            path: "Tests/Helpers/vault-auth-storage-tool"
        ),

        // What several test targets share: temporary directories, the built products.
        .target(name: "VaultTestSupport", dependencies: ["VaultCore", "VaultSystem"], path: "Tests/VaultTestSupport"),

        .testTarget(name: "VaultSystemTests", dependencies: ["VaultSystem"]),
        .testTarget(name: "VaultCoreTests", dependencies: ["VaultSystem", "VaultCore"]),
        .testTarget(name: "VaultCryptoTests", dependencies: ["VaultCrypto", "VaultCore"]),
        // The daemon in-process: the dispatcher over the in-memory store, configuration parsing, a connection.
        .testTarget(name: "VaultDaemonTests", dependencies: ["VaultSystem", "VaultDaemon", "VaultProtocol", "VaultStores", "VaultCore", "VaultCrypto", "VaultRemotes", "VaultTokens", "VaultTestSupport"]),
        .testTarget(name: "VaultStoresTests", dependencies: ["VaultSystem", "VaultCore", "VaultCrypto", "VaultStores", "CLibSecret", "vault-store-tool", "VaultTestSupport"]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["VaultFuzzTargets", "VaultTestSupport"]),
        .testTarget(name: "VaultProtocolTests", dependencies: ["VaultSystem", "VaultProtocol", "VaultCore"]),
        .testTarget(name: "VaultCLITests", dependencies: ["VaultSystem", "VaultCLI", "VaultClient", "VaultCore"]),
        // The credential helpers' parsers, mappings and answers, without a daemon.
        .testTarget(name: "VaultHelpersTests", dependencies: ["VaultSystem", "VaultHelpers", "VaultClient", "VaultCore", "VaultTestSupport"]),
        .testTarget(name: "VaultClientTests", dependencies: ["VaultSystem", "VaultClient", "VaultCore", "vaultd", "VaultTestSupport"]),
        // Sign-in providers and the single-flight refresh, in-process against a scripted transport.
        .testTarget(name: "VaultTokensTests", dependencies: ["VaultSystem", "VaultTokens", "VaultCore"]),
        .testTarget(name: "VaultRemotesTests", dependencies: ["VaultSystem", "VaultRemotes", "VaultTokens", "VaultCore"]),
        .testTarget(name: "VaultSpacesTests", dependencies: ["VaultSpaces", "VaultCrypto", "VaultCore", "VaultTestSupport"]),
        // Runs the built vaultd and vaultctl binaries.
        // The static clients (vaultctl, the credential helpers) are not dependencies: a test target
        // is linked with its executable dependencies' linker settings, and a test bundle cannot be a
        // static executable. `swift build --build-tests` builds them with everything else.
        .testTarget(name: "EndToEndTests", dependencies: ["VaultSystem", "vaultd", "vault-store-tool", "vault-auth-storage-tool", "VaultClient", "VaultTokenSource", "VaultCore", "VaultCrypto", "VaultSpaces", "VaultTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
