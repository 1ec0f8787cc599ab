import Testing
import VaultTestSupport

/// The clients are static executables (Package.swift's `staticClient`): no dynamic loader, no
/// shared library, and no libcrypto inside them either, since VaultCore is free of it and only the
/// daemon's side (VaultStores, VaultDaemon, through VaultCrypto) links OpenSSL. Read from the
/// built binaries with readelf (binutils).
@Suite struct LinkedLibrariesTests {
    static func readelf(_ options: [String], _ executable: String) throws -> String {
        let result = try ProcessRunner.run(["/usr/bin/readelf"] + options + ["--wide", executable], environment: ["LC_ALL": "C"])
        #expect(result.status == 0, "readelf: \(result.stderr)")
        return result.text
    }

    /// The NEEDED entries of `executable`'s dynamic section.
    static func neededLibraries(_ executable: String) throws -> [String] {
        // "0x0000000000000001 (NEEDED)             Shared library: [libc.so.6]"
        try readelf(["--dynamic"], executable).split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.lastIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    /// The names in `executable`'s symbol tables, static and dynamic ("   531: 0000000000000000
    /// 0 FUNC GLOBAL DEFAULT UND EVP_CipherInit_ex@OPENSSL_3.0.0 (41)": the eighth field, before
    /// any version).
    static func symbols(_ executable: String) throws -> [String] {
        try readelf(["--syms"], executable).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 8, fields[0].hasSuffix(":") else { return nil }
            return String(fields[7].split(separator: "@").first ?? fields[7])
        }
    }

    /// Those of `symbols` that OpenSSL defines or uses.
    static func openssl(_ symbols: [String]) -> [String] {
        symbols.filter { $0.hasPrefix("EVP_") || $0.hasPrefix("OPENSSL_") }
    }

    @Test(arguments: ["vaultctl", "git-credential-vault", "docker-credential-vault"])
    func clientsAreStaticExecutablesWithoutLibcrypto(program: String) throws {
        let path = BuiltProducts.path(program)
        let headers = try Self.readelf(["--program-headers"], path)
        #expect(headers.contains("LOAD"), "no program headers read from \(program)")
        #expect(!headers.contains("INTERP"), "\(program) asks for a dynamic loader")
        #expect(try Self.neededLibraries(path).isEmpty, "\(program) needs shared libraries")
        // Read from a symbol table that is there (a stripped binary would pass for want of one).
        let symbols = try Self.symbols(path)
        #expect(symbols.contains("main"), "no symbol table read from \(program)")
        let openssl = Self.openssl(symbols)
        #expect(openssl.isEmpty, "\(program) holds OpenSSL: \(openssl.prefix(5))")
    }

    /// The checks themselves see a dynamic executable and libcrypto where they are.
    @Test func vaultdLinksLibcrypto() throws {
        let path = BuiltProducts.path("vaultd")
        #expect(try Self.readelf(["--program-headers"], path).contains("INTERP"))
        let needed = try Self.neededLibraries(path)
        #expect(needed.contains { $0.hasPrefix("libcrypto") }, "vaultd needs \(needed)")
        #expect(try Self.openssl(try Self.symbols(path)).contains { $0.hasPrefix("EVP_") })
    }
}
