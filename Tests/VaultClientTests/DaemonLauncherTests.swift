import Testing
@testable import VaultClient

/// Where autostart looks for vaultd: beside the running executable, then absolute PATH entries only.
@Suite struct DaemonLauncherTests {
    @Test func onlyAbsoluteDirectoriesAreCandidates() {
        #expect(DaemonLauncher.candidates(executableDirectory: "/opt/vault/bin", path: ".:bin::/usr/bin:/usr/local/bin/:./x:~/bin")
            == ["/opt/vault/bin/vaultd", "/usr/bin/vaultd", "/usr/local/bin/vaultd"])
        #expect(DaemonLauncher.candidates(executableDirectory: nil, path: ".") == [])
        #expect(DaemonLauncher.candidates(executableDirectory: "relative", path: nil) == ["/usr/local/bin/vaultd", "/usr/bin/vaultd", "/bin/vaultd"])
    }
}
