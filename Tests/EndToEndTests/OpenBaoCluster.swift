import Foundation
import VaultCore
import VaultTestSupport

/// Three real OpenBao servers on loopback forming one Raft cluster, as a team runs it: each node
/// its own configuration, data directory and two ports; `bao operator init` with one key share,
/// every node unsealed, all three voters, KV v2 at `secret/`. Killed when released.
final class OpenBaoCluster: @unchecked Sendable {
    let directory: String
    let addresses: [String]
    private var processes: [Process] = []
    private(set) var rootToken = ""

    init(in directory: String) throws {
        self.directory = directory
        let ports = try (0..<6).map { _ in try OpenBaoServer.freePort() }
        addresses = (0..<3).map { "http://127.0.0.1:\(ports[$0])" }
        let joins = addresses.map { "  retry_join { leader_api_addr = \"\($0)\" }" }.joined(separator: "\n")
        for node in 0..<3 {
            let data = "\(directory)/n\(node)"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            try """
                storage "raft" {
                  path = "\(data)"
                  node_id = "n\(node)"
                \(joins)
                }
                listener "tcp" {
                  address = "127.0.0.1:\(ports[node])"
                  cluster_address = "127.0.0.1:\(ports[node + 3])"
                  tls_disable = true
                }
                api_addr = "\(addresses[node])"
                cluster_addr = "http://127.0.0.1:\(ports[node + 3])"
                disable_mlock = true
                """.write(toFile: "\(directory)/n\(node).hcl", atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: OpenBaoServer.binary)
            process.arguments = ["server", "-config=\(directory)/n\(node).hcl"]
            process.environment = ["HOME": directory, "PATH": "/usr/bin:/bin"]
            FileManager.default.createFile(atPath: "\(directory)/n\(node).log", contents: nil)
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle(forWritingAtPath: "\(directory)/n\(node).log")
            process.standardError = process.standardOutput
            try process.run()
            processes.append(process)
        }
        do {
            try formCluster()
        } catch {
            kill()
            throw error
        }
    }

    deinit { kill() }

    private func formCluster() throws {
        // Every node answers (sealed, not initialised: `bao status` exits 2, not 1).
        for node in 0..<3 { try wait("node \(node) to listen") { try bao(node, ["status"]).status == 2 } }
        let initialised = try bao(0, ["operator", "init", "-key-shares=1", "-key-threshold=1", "-format=json"])
        let object = try JSONSerialization.jsonObject(with: Data(initialised.stdout)) as? [String: Any]
        guard let key = (object?["unseal_keys_b64"] as? [String])?.first, let root = object?["root_token"] as? String else {
            throw VaultError.unavailable("bao operator init gave no key: \(initialised.stderr)")
        }
        rootToken = root
        // A follower can be unsealed once retry_join has found the initialised leader.
        for node in 0..<3 { try wait("node \(node) to unseal") { try bao(node, ["operator", "unseal", key]).status == 0 } }
        try wait("three voters") {
            let peers = try bao(0, ["operator", "raft", "list-peers", "-format=json"]).text
            return peers.components(separatedBy: "\"voter\": true").count == 4
        }
        try wait("the kv mount") { try bao(leader() ?? 0, ["secrets", "enable", "-version=2", "-path=secret", "kv"]).status == 0 }
        // A new KV v2 mount answers 400 ("waiting for the primary to upgrade") for a moment.
        try wait("the kv mount on the leader") { try bao(leader() ?? 0, ["kv", "put", "-mount=secret", "probe", "v=1"]).status == 0 }
        for node in 0..<3 { try wait("the kv mount on node \(node)") { try bao(node, ["kv", "get", "-mount=secret", "probe"]).status == 0 } }
    }

    /// Waits up to 90 s for `condition`.
    func wait(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            if (try? condition()) == true { return }
            usleep(300_000)
        }
        throw VaultError.unavailable("the Raft cluster did not come up: waited 90 s for \(what)")
    }

    /// `bao ARGUMENTS` against node `node` as root.
    func bao(_ node: Int, _ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run([OpenBaoServer.binary] + arguments,
                              environment: ["BAO_ADDR": addresses[node], "BAO_TOKEN": rootToken, "HOME": directory, "PATH": "/usr/bin:/bin"])
    }

    /// The index of the node that is leader now, asked of the first live node that answers.
    func leader() throws -> Int? {
        for node in 0..<3 where processes[node].isRunning {
            guard let data = try? bao(node, ["operator", "raft", "list-peers", "-format=json"]).stdout,
                  let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any],
                  let servers = ((object["data"] as? [String: Any])?["config"] as? [String: Any])?["servers"] as? [[String: Any]],
                  let leader = servers.first(where: { $0["leader"] as? Bool == true }),
                  let id = leader["node_id"] as? String, let index = Int(id.dropFirst()) else { continue }
            return index
        }
        return nil
    }

    func kill(node: Int) {
        guard processes[node].isRunning else { return }
        _ = Glibc.kill(processes[node].processIdentifier, SIGKILL)
        processes[node].waitUntilExit()
    }

    func kill() {
        for node in processes.indices { kill(node: node) }
    }
}
