import Foundation
import Testing
import VaultCore

/// The credential helpers that use the Secret Service (docker-credential-secretservice,
/// git-credential-libsecret) with vaultd as the Secret Service: what they store is kept in vault's
/// file, vault's own helpers find it (switching needs no re-entry), and its rules guard it.
@Suite struct SecretServiceProviderHelperTests {
    typealias Provider = SecretServiceProviderTests.Provider

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HelperSharingTests.secretservice), "needs golang-docker-credential-helpers"))
    func dockerCredentialSecretserviceStoresGetsListsAndErases() throws {
        let provider = try Provider()
        let vault = provider.vault
        let helper = HelperSharingTests.secretservice
        let hub = "https://index.docker.io/v1/"
        #expect(try vault.run([helper, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"alice","Secret":"docker-secret"}"#.utf8)).status == 0)
        let got = try vault.run([helper, "get"], input: Array(hub.utf8))
        #expect(got.text.contains(#""Username":"alice""#) && got.text.contains(#""Secret":"docker-secret""#), "\(got.text) \(got.stderr)")
        let list = try vault.run([helper, "list"])
        #expect(list.text.contains(#""\#(hub)":"alice""#), "\(list.text) \(list.stderr)")
        // vaultctl sees it, under the key vault made up for it, and survives a restart of vaultd.
        #expect(try vault.ctl("list", ItemKey.attributeOnlyService).text.contains(hub))
        vault.stopDaemons()
        try provider.start()
        #expect(try vault.run([helper, "get"], input: Array(hub.utf8)).text.contains(#""Secret":"docker-secret""#))
        #expect(try vault.run([helper, "erase"], input: Array(hub.utf8)).status == 0)
        #expect(try vault.run([helper, "get"], input: Array(hub.utf8)).status != 0)
        #expect(!(try vault.ctl("list").text.contains(hub)))
    }

    /// Switching from docker-credential-secretservice to vault's helper while vaultd is the
    /// Secret Service: what the old helper stored (in vault's file, through vaultd) is found, and
    /// a new secret stored by vault's helper replaces it with vault's own item.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HelperSharingTests.secretservice), "needs golang-docker-credential-helpers"))
    func vaultsDockerHelperFindsWhatDockerCredentialSecretserviceStoredThroughVaultd() throws {
        let provider = try Provider()
        let vault = provider.vault
        let ours = vault.product("docker-credential-vault")
        let hub = "https://index.docker.io/v1/"
        #expect(try vault.run([HelperSharingTests.secretservice, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"alice","Secret":"old-secret"}"#.utf8)).status == 0)
        let got = try vault.run([ours, "get"], input: Array(hub.utf8))
        #expect(got.text.contains(#""Username":"alice""#) && got.text.contains(#""Secret":"old-secret""#), "\(got.text) \(got.stderr)")
        #expect(try vault.run([ours, "list"]).text.contains(#""\#(hub)":"alice""#))
        #expect(try vault.run([ours, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"alice","Secret":"new-secret"}"#.utf8)).status == 0)
        #expect(try vault.run([ours, "get"], input: Array(hub.utf8)).text.contains(#""Secret":"new-secret""#))
        #expect(try vault.ctl("get", "docker:" + hub, "alice").stdout == Array("new-secret".utf8))
        #expect(!(try vault.ctl("list", ItemKey.attributeOnlyService).text.contains(hub)), "the old helper's copy is replaced")
        #expect(try vault.run([ours, "erase"], input: Array(hub.utf8)).status == 0)
        #expect(try vault.run([ours, "get"], input: Array(hub.utf8)).status != 0)
    }

    /// The other helper's item kept in vault's file is a vault item: its own rules guard it when
    /// vault's helper reads it, and deleting it through vault's helper takes its rules with it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HelperSharingTests.secretservice), "needs golang-docker-credential-helpers"))
    func theRulesOfAnotherHelpersItemKeptInVaultGuardIt() throws {
        let provider = try Provider()
        let vault = provider.vault
        let ours = vault.product("docker-credential-vault")
        let hub = "https://registry.example/v2/"
        #expect(try vault.run([HelperSharingTests.secretservice, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"bob","Secret":"guarded"}"#.utf8)).status == 0)
        let listed = try JSONSerialization.jsonObject(with: Data(try vault.ctl("list", ItemKey.attributeOnlyService, "--json").stdout)) as? [[String: Any]] ?? []
        let account = try #require(listed.first?["account"] as? String)
        #expect(try vault.ctl("allow", ItemKey.attributeOnlyService, account, "/usr/bin/true").status == 0)
        let refused = try vault.run([ours, "get"], input: Array(hub.utf8))
        #expect(refused.status != 0 && !refused.text.contains("guarded"), "\(refused.text) \(refused.stderr)")
        #expect(try vault.ctl("audit").text.contains(account))
        #expect(try vault.run([ours, "erase"], input: Array(hub.utf8)).status == 0)
        #expect(!(try vault.ctl("rules").text.contains(account)), "the rules go with the item")
    }

    /// The same for git: git-credential-libsecret's credential, kept in vault's file through
    /// vaultd, is what git-credential-vault fills; a new password approved through vault's helper
    /// replaces it.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: HelperSharingTests.libsecretSource), "needs the libsecret helper's source from Debian's git package"))
    func vaultsGitHelperFindsWhatGitCredentialLibsecretStoredThroughVaultd() throws {
        let provider = try Provider()
        let vault = provider.vault
        let libsecret = try HelperSharingTests().buildLibsecretHelper(vault)
        func git(_ helper: String, _ operation: String, _ lines: String) throws -> VaultHarness.Result {
            try vault.run(["/usr/bin/git", "-c", "credential.helper=", "-c", "credential.helper=" + helper, "credential", operation],
                          input: Array(lines.utf8), environment: ["GIT_TERMINAL_PROMPT": "0", "PATH": UnprivilegedUser.programs + ":" + VaultHarness.binDirectory + ":/usr/bin:/bin"])
        }
        #expect(try git(libsecret, "approve", "protocol=https\nhost=forge.example\nusername=carol\npassword=from-libsecret\n\n").status == 0)
        let filled = try git("vault", "fill", "protocol=https\nhost=forge.example\n\n")
        #expect(filled.text == "protocol=https\nhost=forge.example\nusername=carol\npassword=from-libsecret\n", "\(filled.text) \(filled.stderr)")
        #expect(try git("vault", "approve", "protocol=https\nhost=forge.example\nusername=carol\npassword=changed\n\n").status == 0)
        #expect(try git("vault", "fill", "protocol=https\nhost=forge.example\n\n").text.contains("password=changed"))
        #expect(!(try vault.ctl("list", ItemKey.attributeOnlyService).text.contains("forge.example")), "the old helper's copy is replaced")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: HelperSharingTests.libsecretSource), "needs the libsecret helper's source from Debian's git package"))
    func gitCredentialThroughGitCredentialLibsecretKeepsItsItemsInVault() throws {
        let provider = try Provider()
        let vault = provider.vault
        let libsecret = try HelperSharingTests().buildLibsecretHelper(vault)
        func git(_ operation: String, _ lines: String) throws -> VaultHarness.Result {
            try vault.run(["/usr/bin/git", "-c", "credential.helper=", "-c", "credential.helper=" + libsecret, "credential", operation],
                          input: Array(lines.utf8), environment: ["GIT_TERMINAL_PROMPT": "0"])
        }
        #expect(try git("approve", "protocol=https\nhost=forge.example\nusername=carol\npassword=from-git\n\n").status == 0)
        let filled = try git("fill", "protocol=https\nhost=forge.example\n\n")
        #expect(filled.text == "protocol=https\nhost=forge.example\nusername=carol\npassword=from-git\n", "\(filled.stderr)")
        // The item is vault's, under a key vault made up (git's attributes have no service).
        let listed = try vault.ctl("list", ItemKey.attributeOnlyService, "--json").text
        #expect(listed.contains("forge.example"), "\(listed)")
        vault.stopDaemons()
        try provider.start()
        #expect(try git("fill", "protocol=https\nhost=forge.example\n\n").text.contains("password=from-git"))
        #expect(try git("reject", "protocol=https\nhost=forge.example\nusername=carol\npassword=from-git\n\n").status == 0)
        #expect(try git("fill", "protocol=https\nhost=forge.example\n\n").status != 0)
        #expect(!(try vault.ctl("list").text.contains("forge.example")))
    }
}
