import CVaultShims
import VaultSystem

/// How many CPUs this process may use: those of its affinity (`taskset`, a container's cpuset)
/// and, below that, its cgroup's CPU quota (a container's `--cpus`, systemd's `CPUQuota=`), the
/// smallest along its cgroup's path, in whole CPUs rounded down (at least 1). A process limited
/// to 1.5 CPUs' worth of time on 8 CPUs counts 1: what vaultd spends spinning (`BusyPoll`) would
/// come out of its clients' share.
///
/// The quota is read as the kernel shows it: the cgroup from /proc/self/cgroup (cgroup v2's
/// `0::PATH`, or v1's hierarchy with the `cpu` controller), found under the cgroup file system
/// that /proc/self/mountinfo says holds it (a container sees its own cgroup as the mount's root),
/// then v2's `cpu.max` (`QUOTA PERIOD`, or `max`) or v1's `cpu.cfs_quota_us` and
/// `cpu.cfs_period_us` (-1: none) in that directory and each one above it. Anything unreadable or
/// malformed counts as no quota.
public enum UsableCPUs {
    /// For this process, worked out once.
    public static let count: Int = {
        let affinity = Int(vault_usable_cpu_count())
        // mountinfo passes 64 KiB on hosts with hundreds of mounts.
        let mountinfo = FileSystem.kernelText("/proc/self/mountinfo", limit: 4 << 20)
        guard let quota = quota(cgroup: FileSystem.kernelText("/proc/self/cgroup"), mountinfo: mountinfo, read: { FileSystem.kernelText($0) })
        else { return affinity }
        return max(1, min(affinity, quota))
    }()

    /// The quota in whole CPUs (rounded down, at least 1), or nil for none, from the text of
    /// /proc/self/cgroup and /proc/self/mountinfo; `read` gives a file's text, or nil.
    static func quota(cgroup: String?, mountinfo: String?, read: (String) -> String?) -> Int? {
        guard let cgroup, let mountinfo else { return nil }
        let mounts = mountinfo.split(separator: "\n").compactMap(Mount.init)
        var limits: [Int] = []
        for line in cgroup.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[2].hasPrefix("/") else { continue }
            let path = String(fields[2])
            if fields[0] == "0", fields[1].isEmpty {
                for mount in mounts where mount.type == "cgroup2" {
                    limits += directories(of: path, under: mount).compactMap { version2Limit(read($0 + "/cpu.max")) }
                }
            } else if fields[1].split(separator: ",").contains("cpu") {
                for mount in mounts where mount.type == "cgroup" && mount.options.contains("cpu") {
                    limits += directories(of: path, under: mount).compactMap {
                        version1Limit(quota: read($0 + "/cpu.cfs_quota_us"), period: read($0 + "/cpu.cfs_period_us"))
                    }
                }
            }
        }
        return limits.min()
    }

    /// The cgroup's directory under the mount and each one above it, up to the mount point; none
    /// when the cgroup is not below the mount's root.
    private static func directories(of path: String, under mount: Mount) -> [String] {
        let relative: Substring
        if mount.root == "/" {
            relative = path.dropFirst()
        } else if path == mount.root {
            relative = ""
        } else if path.hasPrefix(mount.root + "/") {
            relative = path.dropFirst(mount.root.count + 1)
        } else {
            return []
        }
        var components = relative.split(separator: "/").map(String.init)
        guard !components.contains("..") else { return [] }
        var result: [String] = []
        while true {
            result.append(([mount.point] + components).joined(separator: "/"))
            if components.isEmpty { return result }
            components.removeLast()
        }
    }

    /// cgroup v2's `cpu.max`: `max PERIOD` (none) or `QUOTA PERIOD` in microseconds.
    private static func version2Limit(_ text: String?) -> Int? {
        guard let fields = text?.split(whereSeparator: { $0 == " " || $0 == "\n" }), fields.count == 2, fields[0] != "max" else { return nil }
        return limit(quota: Int(fields[0]), period: Int(fields[1]))
    }

    /// cgroup v1's quota and period in microseconds; a quota of -1 is none.
    private static func version1Limit(quota: String?, period: String?) -> Int? {
        func number(_ text: String?) -> Int? { text.flatMap { Int($0.split(whereSeparator: { $0 == "\n" || $0 == " " }).first ?? "") } }
        return limit(quota: number(quota), period: number(period))
    }

    private static func limit(quota: Int?, period: Int?) -> Int? {
        guard let quota, let period, quota > 0, period > 0 else { return nil }
        return max(1, quota / period)
    }

    /// A line of /proc/self/mountinfo: `ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [TAGS...] - TYPE SOURCE SUPER`.
    private struct Mount {
        let root: String
        let point: String
        let type: String
        let options: [Substring]

        init?(_ line: Substring) {
            let fields = line.split(separator: " ")
            guard let separator = fields.firstIndex(of: "-"), separator >= 6, fields.count >= separator + 4 else { return nil }
            root = Self.unescaped(fields[3])
            point = Self.unescaped(fields[4])
            type = String(fields[separator + 1])
            options = fields[separator + 3].split(separator: ",")
            guard root.hasPrefix("/"), point.hasPrefix("/") else { return nil }
        }

        /// The kernel writes a space, tab, newline or backslash in a path as `\` and three octal digits.
        private static func unescaped(_ field: Substring) -> String {
            guard field.contains("\\") else { return String(field) }
            var bytes: [UInt8] = []
            let utf8 = Array(field.utf8)
            var index = 0
            while index < utf8.count {
                if utf8[index] == UInt8(ascii: "\\"), index + 4 <= utf8.count,
                   let value = UInt8(String(decoding: utf8[(index + 1)..<(index + 4)], as: UTF8.self), radix: 8) {
                    bytes.append(value)
                    index += 4
                } else {
                    bytes.append(utf8[index])
                    index += 1
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
