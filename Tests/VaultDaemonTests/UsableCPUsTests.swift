import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultSystem

/// `UsableCPUs.quota` over cgroup trees laid out as the kernel shows them, in files of a
/// temporary directory (the mount points of the mountinfo lines below point there).
@Suite struct UsableCPUsTests {
    /// A temporary directory holding `files` (relative path: contents); `body` gets its path.
    private func withTree(_ files: [String: String], _ body: (String) throws -> Void) throws {
        let root = NSTemporaryDirectory() + "vault-cpus-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (path, contents) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try body(root)
    }

    private func read(_ path: String) -> String? {
        guard let fd = try? FileDescriptor.open(path, O_RDONLY) else { return nil }
        defer { fd.close() }
        return (try? fd.readAll(limit: 4096)).map { String(decoding: $0, as: UTF8.self) }
    }

    private func version2Mount(_ point: String, root: String = "/") -> String {
        "35 24 0:30 \(root) \(point) rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
    }

    @Test func theSmallestQuotaAlongTheCgroupsPathCountsRoundedDown() throws {
        try withTree([
            "cg/cpu.max": "max 100000\n",
            "cg/a/cpu.max": "150000 100000\n",
            "cg/a/b/cpu.max": "max 100000\n",
        ]) { root in
            let quota = UsableCPUs.quota(cgroup: "0::/a/b\n", mountinfo: version2Mount(root + "/cg"), read: read)
            #expect(quota == 1)
        }
        try withTree(["cg/a/cpu.max": "400000 100000\n", "cg/a/b/cpu.max": "250000 100000\n"]) { root in
            #expect(UsableCPUs.quota(cgroup: "0::/a/b\n", mountinfo: version2Mount(root + "/cg"), read: read) == 2)
        }
    }

    @Test func noQuotaAnywhereIsNone() throws {
        try withTree(["cg/cpu.max": "max 100000\n", "cg/a/cpu.max": "max 100000\n"]) { root in
            #expect(UsableCPUs.quota(cgroup: "0::/a\n", mountinfo: version2Mount(root + "/cg"), read: read) == nil)
        }
        // No cgroup file system mounted, or the files unreadable.
        #expect(UsableCPUs.quota(cgroup: "0::/a\n", mountinfo: "", read: read) == nil)
        #expect(UsableCPUs.quota(cgroup: nil, mountinfo: nil, read: read) == nil)
    }

    /// A container: the mount's root is the container's own cgroup, which /proc/self/cgroup names
    /// in full without a cgroup namespace, or as `/` with one.
    @Test func aContainersCgroupIsFoundUnderTheMountsRoot() throws {
        try withTree(["cg/cpu.max": "50000 100000\n"]) { root in
            let mount = version2Mount(root + "/cg", root: "/docker/abc")
            #expect(UsableCPUs.quota(cgroup: "0::/docker/abc\n", mountinfo: mount, read: read) == 1)
            #expect(UsableCPUs.quota(cgroup: "0::/\n", mountinfo: version2Mount(root + "/cg"), read: read) == 1)
            // A cgroup outside the mount's root is not guessed at.
            #expect(UsableCPUs.quota(cgroup: "0::/elsewhere\n", mountinfo: mount, read: read) == nil)
        }
    }

    @Test func cgroupVersion1sCPUControllerIsRead() throws {
        let cgroup = "12:pids:/user.slice\n4:cpu,cpuacct:/user.slice\n1:name=systemd:/user.slice\n"
        try withTree([
            "cpu,cpuacct/user.slice/cpu.cfs_quota_us": "300000\n",
            "cpu,cpuacct/user.slice/cpu.cfs_period_us": "100000\n",
            "cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
            "cpu,cpuacct/cpu.cfs_period_us": "100000\n",
        ]) { root in
            let mountinfo = """
                30 24 0:26 / \(root)/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct
                31 24 0:27 / \(root)/pids rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,pids

                """
            #expect(UsableCPUs.quota(cgroup: cgroup, mountinfo: mountinfo, read: read) == 3)
        }
        try withTree(["cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"]) { root in
            let mountinfo = "30 24 0:26 / \(root)/cpu rw - cgroup cgroup rw,cpu,cpuacct\n"
            #expect(UsableCPUs.quota(cgroup: "4:cpu,cpuacct:/\n", mountinfo: mountinfo, read: read) == nil)
        }
    }

    /// The kernel escapes a space in a mount point as `\040`.
    @Test func aMountPointWithASpaceIsFound() throws {
        try withTree(["c g/cpu.max": "100000 100000\n"]) { root in
            let point = root.replacingSpaces() + "/c\\040g"
            #expect(UsableCPUs.quota(cgroup: "0::/\n", mountinfo: version2Mount(point), read: read) == 1)
        }
    }

    @Test func malformedFilesCountAsNoQuota() throws {
        for text in ["", "abc 100000", "100000", "100000 0", "-5 100000", "0 100000", "1 2 3", "99999999999999999999999 100000", "max"] {
            try withTree(["cg/cpu.max": text]) { root in
                #expect(UsableCPUs.quota(cgroup: "0::/\n", mountinfo: version2Mount(root + "/cg"), read: read) == nil, "cpu.max \(text)")
            }
        }
        try withTree(["cg/cpu.max": "100000 100000\n"]) { root in
            for cgroup in ["", "garbage", "0::relative", "0:/a", "0::/../..\n"] {
                #expect(UsableCPUs.quota(cgroup: cgroup, mountinfo: version2Mount(root + "/cg"), read: read) == nil, "cgroup \(cgroup)")
            }
            for mountinfo in ["garbage\n", "35 24 0:30 / \(root)/cg rw - cgroup2\n", "35 24 0:30 relative \(root)/cg rw shared:9 - cgroup2 cgroup2 rw\n"] {
                #expect(UsableCPUs.quota(cgroup: "0::/\n", mountinfo: mountinfo, read: read) == nil, "mountinfo \(mountinfo)")
            }
        }
    }

    @Test func thisProcessCountsAtLeastOneCPUAndNoMoreThanItsAffinity() {
        #expect(UsableCPUs.count >= 1)
        #expect(UsableCPUs.count <= ProcessInfo.processInfo.activeProcessorCount)
    }
}

private extension String {
    /// The path as mountinfo would show it (no spaces in temporary directories made here).
    func replacingSpaces() -> String { split(separator: " ", omittingEmptySubsequences: false).joined(separator: "\\040") }
}
