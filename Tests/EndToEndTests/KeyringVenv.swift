import Foundation
import VaultCore
import VaultTestSupport

/// A virtualenv of its own with python/ (the vault-keyring backend) installed by pip, for one
/// test: it sees the project's .venv packages (keyring, pip) through a .pth file, builds without
/// fetching anything, and has a `keyring` command on PATH for pip's subprocess provider.
/// Commands run with the harness's environment (no session bus, so no Secret Service), no pip
/// configuration of the machine's, and no keyring backend forced.
struct KeyringVenv {
    let directory: String
    let vault: VaultHarness

    init(_ vault: VaultHarness) throws {
        self.vault = vault
        directory = vault.root + "/keyring-venv"
        let site = PythonFixture.packageRoot + "/.venv/lib/python3.11/site-packages"
        try Self.check(vault.run(["/usr/bin/python3", "-m", "venv", "--without-pip", directory]), "python3 -m venv")
        FileManager.default.createFile(atPath: directory + "/lib/python3.11/site-packages/project-venv.pth", contents: Data((site + "\n").utf8))
        // From a copy: setuptools writes build/ and *.egg-info beside the sources, which tests
        // running at once would share.
        let source = vault.root + "/vault-keyring-source"
        try FileManager.default.copyItem(atPath: PythonFixture.packageRoot + "/python", toPath: source)
        try Self.check(run(["-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", source]), "pip install ./python")
        // Outside the venv's bin/: pip's subprocess provider skips a `keyring` in its own scripts directory.
        try FileManager.default.createDirectory(atPath: binDirectory, withIntermediateDirectories: true)
        let wrapper = binDirectory + "/keyring"
        try ExecutableFile.write(Array("#!/bin/sh\nexec \(python) -m keyring \"$@\"\n".utf8), to: wrapper)
    }

    var python: String { directory + "/bin/python" }
    var binDirectory: String { directory + "-bin" }

    /// The harness's environment without the machine's pip settings (PIP_FIND_LINKS, /etc/pip.conf)
    /// or a forced keyring backend, the `keyring` wrapper first on PATH, then `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = vault.environment.filter { !$0.key.hasPrefix("PIP_") && $0.key != "PYTHON_KEYRING_BACKEND" }
        environment["PIP_CONFIG_FILE"] = "/dev/null"
        environment["PIP_NO_INPUT"] = "1"
        environment["PATH"] = binDirectory + ":" + (vault.environment["PATH"] ?? "/usr/bin:/bin")
        return environment.merging(extra) { $1 }
    }

    /// `python -m keyring ARGUMENTS`, `input` on stdin.
    func keyring(_ arguments: [String], input: String = "", environment extra: [String: String] = [:]) throws -> ProcessRunner.Result {
        try run(["-m", "keyring"] + arguments, input: input, environment: extra)
    }

    /// This venv's python with `arguments`.
    func run(_ arguments: [String], input: String = "", environment extra: [String: String] = [:]) throws -> ProcessRunner.Result {
        try ProcessRunner.run([python] + arguments, environment: environment(extra), input: Array(input.utf8))
    }

    static func check(_ result: ProcessRunner.Result, _ what: String) throws {
        guard result.status == 0 else { throw VaultError.unavailable("\(what) failed (\(result.status)): \(result.stderr)") }
    }
}
