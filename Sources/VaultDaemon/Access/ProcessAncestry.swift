#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol
import VaultSystem

/// A process's parents as /proc shows them now: each one's pid (the fourth field of
/// /proc/PID/stat, read after the last `)` since the command name may hold any byte), program
/// and working directory. For people (what the approver is shown) and for one rule: a requester
/// is never approved by a process that descends from it. Pids can be reused, so a chain read
/// from /proc is what it was at that moment, nothing more.
enum ProcessAncestry {
    /// The parent pid of `pid`, or nil when /proc does not say (the process is gone).
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = FileSystem.kernelText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let parent = Int32(fields[1]) else { return nil }
        return parent
    }

    /// The pids of `pid`'s parent, its parent, ..., up to `limit` of them, stopping before pid 1
    /// (init, or the pid namespace's first process) and 0.
    static func ancestors(of pid: Int32, limit: Int = 64) -> [Int32] {
        var chain: [Int32] = []
        var current = pid
        while chain.count < limit, let parent = parent(of: current), parent > 1, !chain.contains(parent) {
            chain.append(parent)
            current = parent
        }
        return chain
    }

    /// What the approver is shown of `pid`'s ancestry: program and working directory of each.
    static func described(_ pid: Int32) -> [ProcessBody] {
        ancestors(of: pid, limit: ApprovalBody.maxAncestry).map { parent in
            ProcessBody(pid: parent, exe: PeerProcess.readLink("/proc/\(parent)/exe"), cwd: PeerProcess.readLink("/proc/\(parent)/cwd"))
        }
    }
}
