import Foundation
import Testing
import VaultCore

/// vaultd in front of a three-node OpenBao Raft cluster whose leader is killed during a stream
/// of reads and writes: reads keep being served, every acknowledged write is there afterwards,
/// and a write that failed says so.
@Suite struct RemoteClusterTests {
    @Test func theLeaderKilledMidStream() throws {
        let vault = VaultHarness()
        vault.environment["VAULT_REMOTE_REFRESH"] = "1s"
        let cluster = try OpenBaoCluster(in: vault.root + "/raft")
        let leader = try #require(try cluster.leader())
        let follower = (leader + 1) % 3
        #expect(try cluster.bao(leader, ["kv", "put", "-mount=secret", "app/x", "v=read-me"]).status == 0)
        // The remote is a follower that survives (a standby forwards to the active node).
        let added = try vault.ctl(["remote", "add", "c", "--url", cluster.addresses[follower], "--auth", "token"], input: Array(cluster.rootToken.utf8))
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try vault.ctl("read", "kv://c/app/x?field=v").text == "read-me")

        var acknowledged: [Int] = []
        var failed: [(Int, String)] = []
        var readsServed = 0
        var killedAt: Int?
        let start = Date()
        var index = 0
        while Date().timeIntervalSince(start) < 30 {
            index += 1
            if killedAt == nil, Date().timeIntervalSince(start) > 4 {
                cluster.kill(node: leader)
                killedAt = index
            }
            let read = try vault.ctl("read", "kv://c/app/x?field=v")
            #expect(read.status == 0 && read.text == "read-me", "read \(index): \(read.stderr)")
            if read.status == 0 { readsServed += 1 }
            let write = try vault.ctl(["write", "kv://c/app/w\(index)?field=v"], input: Array("\(index)".utf8))
            if write.status == 0 {
                acknowledged.append(index)
            } else {
                failed.append((index, write.stderr))
            }
            usleep(200_000)
        }
        let kill = try #require(killedAt)
        // Writes went through before the kill and again after a new leader took over.
        #expect(acknowledged.contains { $0 < kill } && acknowledged.contains { $0 > kill + 1 }, "acknowledged \(acknowledged), killed at \(kill)")
        // Each failure said which remote, and why, in a sentence; never a secret or the token.
        for (_, message) in failed {
            #expect(message.contains("remote 'c'") && !message.contains(cluster.rootToken), "\(message)")
        }
        // Every acknowledged write is in the cluster, read from a survivor.
        var survivor: Int?
        try cluster.wait("a new leader") { survivor = try cluster.leader(); return survivor != nil && survivor != leader }
        for number in acknowledged {
            let value = try cluster.bao(try #require(survivor), ["kv", "get", "-mount=secret", "-field=v", "app/w\(number)"])
            #expect(value.status == 0 && value.text.trimmingCharacters(in: .whitespacesAndNewlines) == "\(number)", "write \(number): \(value.stderr)")
        }
        #expect(readsServed == index)
        print("raft: \(index) reads served; writes: \(acknowledged.count) acknowledged, \(failed.count) refused (\(failed.first.map { "first \($0.0)" } ?? "none"), the leader killed at \(kill))")
    }
}
