import Testing
import VaultTestSupport

/// The clients load no libcrypto: VaultCore is free of it and only the daemon's side (VaultStores,
/// VaultDaemon, through VaultCrypto) links OpenSSL. Read from the built binaries' dynamic sections.
@Suite struct LinkedLibrariesTests {
    /// The NEEDED entries of `executable`'s dynamic section (readelf, from binutils).
    static func neededLibraries(_ executable: String) throws -> [String] {
        let result = try ProcessRunner.run(["/usr/bin/readelf", "--dynamic", "--wide", executable], environment: ["LC_ALL": "C"])
        #expect(result.status == 0, "readelf: \(result.stderr)")
        // "0x0000000000000001 (NEEDED)             Shared library: [libc.so.6]"
        return result.text.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.lastIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test(arguments: ["vaultctl", "git-credential-vault", "docker-credential-vault"])
    func clientsDoNotLinkLibcrypto(program: String) throws {
        let needed = try Self.neededLibraries(BuiltProducts.path(program))
        #expect(!needed.isEmpty, "no NEEDED entries read from \(program)")
        #expect(!needed.contains { $0.hasPrefix("libcrypto") || $0.hasPrefix("libssl") }, "\(program) needs \(needed)")
    }

    /// The check itself sees libcrypto where it is linked.
    @Test func vaultdLinksLibcrypto() throws {
        let needed = try Self.neededLibraries(BuiltProducts.path("vaultd"))
        #expect(needed.contains { $0.hasPrefix("libcrypto") }, "vaultd needs \(needed)")
    }
}
