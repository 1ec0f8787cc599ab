import Foundation
import Testing
import VaultCore
import VaultSystem

/// docker-credential-vault through docker-py's `docker.credentials.Store("vault")` (the real
/// client: it finds the helper on PATH), and hostile input fed to the helper directly.
@Suite struct DockerCredentialHelperTests {
    static var helper: String { BuiltProducts.path("docker-credential-vault") }

    /// Runs `script` with docker-py in the project's virtualenv, the built helper first on PATH;
    /// `store` is `docker.credentials.Store("vault")`. Prints one JSON value per line.
    func dockerPy(_ vault: VaultHarness, _ script: String) throws -> VaultHarness.Result {
        let path = FileSystem.parentDirectory(of: Self.helper) + ":" + (vault.environment["PATH"] ?? "/usr/bin:/bin")
        let program = """
            import json, docker.credentials, docker.credentials.errors as errors
            store = docker.credentials.Store("vault")
            def show(value): print(json.dumps(value, sort_keys=True))
            def missing(call):
                try:
                    call()
                    return "found"
                except errors.CredentialsNotFound:
                    return "not found"
            """ + "\n" + script
        return try vault.run([PythonFixture.packageRoot + "/.venv/bin/python", "-c", program], environment: ["PATH": path])
    }

    func helper(_ vault: VaultHarness, _ arguments: [String], _ input: [UInt8] = []) throws -> VaultHarness.Result {
        try vault.run([Self.helper] + arguments, input: input)
    }

    @Test func dockerPyStoresGetsListsAndErases() throws {
        let vault = VaultHarness()
        // Items that are not Docker credentials never show in `list`.
        #expect(try vault.ctl("set", "https://index.docker.io/v1/", "david", input: "not docker's\n").status == 0)
        #expect(try vault.ctl("set", "docker", "registry", input: "neither\n").status == 0)

        let result = try dockerPy(vault, """
            show(missing(lambda: store.get("https://index.docker.io/v1/")))
            store.store("https://index.docker.io/v1/", "david", "passw0rd1")
            store.store("registry.example:5000", "<token>", "identity-token-1")
            show(store.get("https://index.docker.io/v1/"))
            show(store.get("registry.example:5000"))
            show(store.list())
            store.store("https://index.docker.io/v1/", "erin", "passw0rd2")
            show(store.get("https://index.docker.io/v1/"))
            store.erase("registry.example:5000")
            show(missing(lambda: store.get("registry.example:5000")))
            show(missing(lambda: store.erase("registry.example:5000")))
            show(store.list())
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.split(separator: "\n").map(String.init) == [
            #""not found""#,
            #"{"Secret": "passw0rd1", "ServerURL": "https://index.docker.io/v1/", "Username": "david"}"#,
            #"{"Secret": "identity-token-1", "ServerURL": "registry.example:5000", "Username": "<token>"}"#,
            #"{"https://index.docker.io/v1/": "david", "registry.example:5000": "<token>"}"#,
            #"{"Secret": "passw0rd2", "ServerURL": "https://index.docker.io/v1/", "Username": "erin"}"#,
            #""not found""#,
            #""not found""#,
            #"{"https://index.docker.io/v1/": "erin"}"#,
        ], "\(result.text)")
        // One credential per server: storing erin replaced david. vaultctl's own items are untouched.
        #expect(try vault.ctl("get", "docker:https://index.docker.io/v1/", "david").status == 3)
        #expect(try vault.ctl("get", "https://index.docker.io/v1/", "david").text == "not docker's")
    }

    @Test func theReferenceHelpersErrorsOnStdoutWithExitOne() throws {
        let vault = VaultHarness()
        let cases: [([String], String, String)] = [
            ([], "", "Usage: docker-credential-vault <store|get|erase|list|version>"),
            (["get", "extra"], "", "Usage: docker-credential-vault <store|get|erase|list|version>"),
            (["frob"], "", "Unknown credential action `frob`"),
            (["get"], "https://nowhere.example\n", "credentials not found in native keychain"),
            (["erase"], "https://nowhere.example", "credentials not found in native keychain"),
            (["get"], " \n\t", "no credentials server URL"),
            (["store"], #"{"Username":"u","Secret":"s"}"#, "no credentials server URL"),
            (["store"], #"{"ServerURL":"https://r.example","Secret":"s"}"#, "no credentials username"),
            (["store"], #"{"ServerURL":"https://r.example","Username":"","Secret":"s"}"#, "no credentials username"),
        ]
        for (arguments, input, message) in cases {
            let result = try helper(vault, arguments, Array(input.utf8))
            #expect(result.status == 1 && result.text == message + "\n" && result.stderr.isEmpty, "\(arguments): \(result.text) \(result.stderr)")
        }
        let version = try helper(vault, ["version"])
        #expect(version.status == 0 && version.text.hasPrefix("docker-credential-vault "))
        let empty = try helper(vault, ["list"])
        #expect(empty.status == 0 && empty.text == "{}\n")
    }

    @Test func hostileInputIsRefusedAndNothingIsLost() throws {
        let vault = VaultHarness()
        let good = Array(#"{"ServerURL":"https://r.example","Username":"frank","Secret":"kept-secret"}"#.utf8)
        #expect(try helper(vault, ["store"], good).status == 0)
        let secretish = "leaked-if-shown"
        let hostile: [(String, [UInt8], String)] = [
            ("oversized", Array(#"{"ServerURL":"https://r.example","Username":"frank","Secret":""#.utf8) + [UInt8](repeating: 0x61, count: 200_000) + Array(#""}"#.utf8), "over 131072 bytes"),
            ("bad JSON", Array(#"{"ServerURL":"https://r.example","Username":"frank","Secret":"\#(secretish)""#.utf8), "not one JSON object"),
            ("not an object", Array(#"["https://r.example","frank","\#(secretish)"]"#.utf8), "not one JSON object"),
            ("wrong type", Array(#"{"ServerURL":"https://r.example","Username":7,"Secret":"\#(secretish)"}"#.utf8), "not one JSON object"),
            ("NUL byte", Array(#"{"ServerURL":"https://r.example"#.utf8) + [0] + Array(#"","Username":"frank","Secret":"\#(secretish)"}"#.utf8), "not one JSON object"),
            ("escaped NUL", Array(#"{"ServerURL":"https://r.example\u0000","Username":"frank","Secret":"\#(secretish)"}"#.utf8), "control characters"),
            ("long URL", Array(#"{"ServerURL":"https://\#(String(repeating: "r", count: 600))","Username":"frank","Secret":"\#(secretish)"}"#.utf8), "the limit is 512"),
        ]
        for (name, input, message) in hostile {
            let result = try helper(vault, ["store"], input)
            #expect(result.status == 1 && result.text.contains(message), "\(name): \(result.text)")
            #expect(!result.text.contains(secretish) && !result.stderr.contains(secretish), "\(name): a secret in the message")
        }
        let oversizedGet = try helper(vault, ["get"], [UInt8](repeating: 0x61, count: 200_000))
        #expect(oversizedGet.status == 1 && oversizedGet.text.contains("over 131072 bytes"))
        let binaryGet = try helper(vault, ["get"], [0xFF, 0xFE, 0x00])
        #expect(binaryGet.status == 1 && binaryGet.text.contains("not UTF-8"))

        let kept = try helper(vault, ["get"], Array("https://r.example".utf8))
        #expect(kept.text == #"{"ServerURL":"https://r.example","Username":"frank","Secret":"kept-secret"}"# + "\n")
        #expect(try helper(vault, ["list"]).text == #"{"https://r.example":"frank"}"# + "\n")
        // Secrets JSON must escape round-trip exactly.
        let tricky = Array(#"{"ServerURL":"https://q.example","Username":"g","Secret":"quote\" back\\ tab\t nl\n é"}"#.utf8)
        #expect(try helper(vault, ["store"], tricky).status == 0)
        let got = try JSONSerialization.jsonObject(with: Data(try helper(vault, ["get"], Array("https://q.example".utf8)).stdout)) as? [String: String]
        #expect(got?["Secret"] == "quote\" back\\ tab\t nl\n é")
    }

    @Test func aLockedVaultIsAnErrorOnStdout() throws {
        let vault = VaultHarness(passphraseFile: false)
        let result = try helper(vault, ["get"], Array("https://r.example".utf8))
        #expect(result.status == 1 && result.text.contains("vault is locked") && result.text.contains("vaultctl unlock"), "\(result.text)")
        #expect(result.text.components(separatedBy: "locked").count == 2 && result.text.components(separatedBy: "vaultctl unlock").count == 2, "\(result.text)")
    }
}
