import Foundation
import Testing
import VaultCore

/// With the Secret Service, git-credential-vault and docker-credential-vault share their items
/// with the helpers people used before: Debian's docker-credential-secretservice
/// (golang-docker-credential-helpers) and git-credential-libsecret, built here from the source
/// Debian's git ships. Real helpers, real gnome-keyring on a private bus (`PrivateKeyring`).
@Suite struct HelperSharingTests {
    static let secretservice = "/usr/bin/docker-credential-secretservice"
    static let libsecretSource = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"

    func docker(_ vault: VaultHarness, _ helper: String, _ action: String, _ input: String = "") throws -> VaultHarness.Result {
        try vault.run([helper, action], input: Array(input.utf8))
    }

    func json(_ result: VaultHarness.Result) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(result.stdout))) as? [String: String] ?? [:]
    }

    /// Items of vault's own whose service starts with `prefix`.
    func vaultItems(_ vault: VaultHarness, _ prefix: String) throws -> [String] {
        let listing = (try? JSONSerialization.jsonObject(with: Data(try vault.ctl("list", "--json").stdout))) as? [[String: Any]] ?? []
        return listing.compactMap { $0["service"] as? String }.filter { $0.hasPrefix(prefix) }
    }

    /// Creates an item exactly as given (attributes include `xdg:schema`), with python
    /// secretstorage; its secret is `secret` repeated `repeating` times.
    func createItem(_ keyring: PrivateKeyring, label: String, attributes: [String: String], secret: [UInt8], repeating: Int = 1) throws {
        let spec = String(decoding: try JSONSerialization.data(withJSONObject: ["label": label, "attributes": attributes, "secret": secret.map(Int.init), "repeat": repeating]), as: UTF8.self)
        let made = try keyring.python("""
            import secretstorage, json, sys
            spec = json.loads(sys.argv[1])
            collection = secretstorage.get_default_collection(secretstorage.dbus_init())
            collection.create_item(spec["label"], spec["attributes"], bytes(spec["secret"]) * spec["repeat"])
            """, arguments: [spec])
        #expect(made.status == 0, "\(made.stderr)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: secretservice), "needs golang-docker-credential-helpers: run scripts/install-deps test"))
    func dockerCredentialsAreSharedWithDockerCredentialSecretserviceBothWays() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        _ = keyring
        let ours = DockerCredentialHelperTests.helper, theirs = Self.secretservice
        let hub = "https://index.docker.io/v1/", registry = "registry.example:5000"

        // Stored by docker-credential-secretservice: got and listed by docker-credential-vault.
        #expect(try docker(vault, theirs, "store", #"{"ServerURL":"\#(hub)","Username":"alice","Secret":"from-secretservice"}"#).status == 0)
        #expect(json(try docker(vault, ours, "get", hub)) == ["ServerURL": hub, "Username": "alice", "Secret": "from-secretservice"])
        #expect(json(try docker(vault, ours, "list")) == [hub: "alice"])

        // Stored by docker-credential-vault: got and listed by docker-credential-secretservice.
        #expect(try docker(vault, ours, "store", #"{"ServerURL":"\#(registry)","Username":"<token>","Secret":"identity-token-1"}"#).status == 0)
        #expect(json(try docker(vault, theirs, "get", registry)) == ["ServerURL": registry, "Username": "<token>", "Secret": "identity-token-1"])
        #expect(json(try docker(vault, theirs, "list")) == [hub: "alice", registry: "<token>"])
        // A new username replaces the old one for both.
        #expect(try docker(vault, ours, "store", #"{"ServerURL":"\#(hub)","Username":"bob","Secret":"from-vault"}"#).status == 0)
        #expect(json(try docker(vault, theirs, "get", hub)) == ["ServerURL": hub, "Username": "bob", "Secret": "from-vault"])
        #expect(json(try docker(vault, theirs, "list")) == [hub: "bob", registry: "<token>"])
        #expect(json(try docker(vault, ours, "list")) == [hub: "bob", registry: "<token>"])
        // One credential, in the shared item: nothing of vault's own beside it.
        #expect(try vaultItems(vault, "docker:") == [])

        // Erased by either: gone for both.
        #expect(try docker(vault, theirs, "erase", registry).status == 0)
        let gone = try docker(vault, ours, "get", registry)
        #expect(gone.status == 1 && gone.text == "credentials not found in native keychain\n")
        #expect(try docker(vault, ours, "erase", hub).status == 0)
        #expect(try docker(vault, theirs, "get", hub).text.contains("credentials not found"))
        #expect(json(try docker(vault, theirs, "list")) == [:])
        #expect(try docker(vault, ours, "list").text == "{}\n")
    }

    /// git-credential-libsecret built from Debian's git package into the test's directory.
    func buildLibsecretHelper(_ vault: VaultHarness) throws -> String {
        let binary = vault.root + "/git-credential-libsecret"
        let built = try vault.run(["/bin/sh", "-c", "gcc -O1 -o \"$1\" \"$2\" $(pkg-config --cflags --libs libsecret-1 glib-2.0)", "sh", binary, Self.libsecretSource])
        try #require(built.status == 0, "gcc could not build git-credential-libsecret: \(built.stderr)")
        return binary
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: libsecretSource), "needs the libsecret helper's source from Debian's git package"))
    func gitCredentialsAreSharedWithGitCredentialLibsecretBothWays() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        let libsecret = try buildLibsecretHelper(vault)
        let git = GitCredentialHelperTests()
        func theirs(_ operation: String, _ lines: String) throws -> VaultHarness.Result {
            try vault.run([libsecret, operation], input: Array(lines.utf8))
        }

        // Stored by git-credential-libsecret: real git fills it through credential.helper vault.
        #expect(try theirs("store", "protocol=https\nhost=forge.example:8443\nusername=carol\npassword=from-libsecret\n").status == 0)
        let filled = try git.credential(vault, "fill", "protocol=https\nhost=forge.example:8443\n\n")
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.text == "protocol=https\nhost=forge.example:8443\nusername=carol\npassword=from-libsecret\n")
        // Not for another port, and not for a path the item was not stored with.
        #expect(try git.helper(vault, "get", "protocol=https\nhost=forge.example\n").text == "")
        #expect(try git.helper(vault, "get", "protocol=https\nhost=forge.example:8443\npath=other/repo.git\n").text == "")
        // approve of what was filled changes nothing: still one item, vault's own list empty.
        #expect(try git.credential(vault, "approve", filled.text + "\n").status == 0)
        #expect(try vaultItems(vault, "git:") == [])

        // Newer git-credential-libsecret's layout (org.git.Password; expiry and refresh token in the secret).
        let future = Int(Date().timeIntervalSince1970) + 3600
        try createItem(keyring, label: "Git: https://new.example/", attributes: ["xdg:schema": "org.git.Password", "user": "erin", "protocol": "https", "server": "new.example"],
                       secret: Array("pw-new\npassword_expiry_utc=\(future)\noauth_refresh_token=refresh-1".utf8))
        #expect(try git.helper(vault, "get", "protocol=https\nhost=new.example\n").text
                == "username=erin\npassword=pw-new\npassword_expiry_utc=\(future)\noauth_refresh_token=refresh-1\n")
        try createItem(keyring, label: "Git: https://old.example/", attributes: ["xdg:schema": "org.git.Password", "user": "fay", "protocol": "https", "server": "old.example"],
                       secret: Array("pw-old\npassword_expiry_utc=1000".utf8))
        #expect(try git.helper(vault, "get", "protocol=https\nhost=old.example\n").text == "")

        // Stored through vault: git-credential-libsecret finds it; rejected through vault: gone for it too.
        #expect(try git.credential(vault, "approve", "protocol=https\nhost=other.example\nusername=dan\npassword=from-vault\n\n").status == 0)
        #expect(try theirs("get", "protocol=https\nhost=other.example\n").text == "username=dan\npassword=from-vault\n")
        #expect(try vaultItems(vault, "git:") == [])
        #expect(try git.credential(vault, "reject", "protocol=https\nhost=other.example\nusername=dan\npassword=another\n\n").status == 0)
        #expect(try theirs("get", "protocol=https\nhost=other.example\n").text.contains("password=from-vault"))
        #expect(try git.credential(vault, "reject", "protocol=https\nhost=other.example\nusername=dan\npassword=from-vault\n\n").status == 0)
        #expect(try theirs("get", "protocol=https\nhost=other.example\n").text == "")
        // Erased by git-credential-libsecret: vault answers nothing.
        #expect(try theirs("erase", "protocol=https\nhost=forge.example:8443\nusername=carol\n").status == 0)
        #expect(try git.helper(vault, "get", "protocol=https\nhost=forge.example:8443\n").text == "")
    }

    /// Other programs' items are hostile input: wrong schemas, attributes vault cannot pass on
    /// (a newline would add lines to git's or Docker's answer), oversized secrets. None is given
    /// out, none breaks an answer, and no secret reaches an error.
    @Test func hostileForeignItemsAreNeverGivenOut() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        let ours = DockerCredentialHelperTests.helper
        func dockerItem(_ server: String, _ username: String, schema: String = "io.docker.Credentials", secret: [UInt8] = Array("hostile-secret".utf8), repeating: Int = 1) throws {
            try createItem(keyring, label: server, attributes: ["xdg:schema": schema, "label": "Docker Credentials", "server": server, "username": username, "docker_cli": "1"],
                           secret: secret, repeating: repeating)
        }
        try dockerItem("https://newline.example", "mallory\n\"Secret\":\"x")
        try dockerItem("https://c1.example\u{9B}2J", "mallory")
        try dockerItem("https://wrong-schema.example", "mallory", schema: "org.example.Other")
        try dockerItem("https://big.example", "mallory", secret: Array("B".utf8), repeating: 70_000)
        try dockerItem("https://fine.example", "frank")
        for server in ["https://newline.example", "https://wrong-schema.example"] {
            let got = try docker(vault, ours, "get", server)
            #expect(got.status == 1 && got.text == "credentials not found in native keychain\n", "\(server): \(got.text)")
        }
        #expect(json(try docker(vault, ours, "list")) == ["https://big.example": "mallory", "https://fine.example": "frank"])
        let big = try docker(vault, ours, "get", "https://big.example")
        #expect(big.status == 1 && big.text.contains("over vault's limit") && !big.text.contains("BBBB"), "\(big.text)")
        #expect(json(try docker(vault, ours, "get", "https://fine.example"))["Secret"] == "hostile-secret")

        let git = GitCredentialHelperTests()
        func gitItem(_ attributes: [String: String], _ secret: String) throws {
            try createItem(keyring, label: "Git", attributes: attributes.merging(["xdg:schema": "org.gnome.keyring.NetworkPassword", "protocol": "https"]) { $1 }, secret: Array(secret.utf8))
        }
        try gitItem(["server": "port.example", "port": "08443x", "user": "u"], "bad-port")
        try gitItem(["server": "user.example", "user": "u\nprotocol=http"], "bad-user")
        try gitItem(["server": "nul.example", "user": "u"], "pass\u{0}word")
        #expect(try git.helper(vault, "get", "protocol=https\nhost=port.example:8443\n").text == "")
        #expect(try git.helper(vault, "get", "protocol=https\nhost=user.example\n").text == "")
        let nul = try git.helper(vault, "get", "protocol=https\nhost=nul.example\n")
        #expect(nul.text == "" && nul.stderr.contains("NUL") && !nul.stderr.contains("pass"), "\(nul.stderr)")
    }

    /// The wire operations themselves: bad requests are refused naming what to fix, and a store
    /// without other helpers' items (the file store) answers as one holding none.
    @Test func foreignOperationsRefuseBadRequestsAndAreEmptyWithTheFileStore() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon()
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        for (request, expected) in [
            (#"{"op":"foreign_list","schema":"pass","attributes":{"server":"h"}}"#, "unknown foreign schema"),
            (#"{"op":"foreign_list","schema":"git","attributes":{"service":"h"}}"#, "not an attribute of git items"),
            (#"{"op":"foreign_get","schema":"docker","attributes":{"server":null}}"#, "at least one attribute"),
            (#"{"op":"foreign_get","schema":"docker","attributes":{"server":"a\u001b[2J"}}"#, "control character"),
            (#"{"op":"foreign_set","schema":"docker","attributes":{"server":"h"},"label":"h","secret":"s3cret"}"#, "needs the attribute"),
            (#"{"op":"foreign_delete","schema":"git","attributes":["server"]}"#, "attributes"),
        ] {
            let answer = try connection.request(request)
            #expect(answer?.errorCode == "bad_request", "\(request): \(String(describing: answer))")
            let message = ((answer?["error"] as? [String: Any])?["message"] as? String) ?? ""
            #expect(message.contains(expected) && !message.contains("s3cret"), "\(message)")
        }
        let empty: [(String, [String])] = [
            (#"{"op":"foreign_list","schema":"docker","attributes":{"label":"Docker Credentials"}}"#, ["foreign"]),
            (#"{"op":"foreign_get","schema":"git","attributes":{"server":"h","port":null}}"#, []),
            (#"{"op":"foreign_set","schema":"git","attributes":{"protocol":"https","server":"h","user":"u"},"label":"l","secret":"s"}"#, ["foreign"]),
            (#"{"op":"foreign_delete","schema":"git","attributes":{"server":"h"}}"#, ["foreign"]),
        ]
        for (request, keys) in empty {
            let result = try connection.request(request)?["result"] as? [String: Any]
            #expect(result.map { Array($0.keys) } == keys, "\(request): \(String(describing: result))")
            #expect((result?["foreign"] as? [Any])?.isEmpty ?? true)
        }
    }
}
