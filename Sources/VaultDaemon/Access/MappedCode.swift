#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// Code a caller runs from files its own user can change. A rule pins a program by its content
/// hash, but the libraries and modules it loads are not pinned: one the user can write (or swap,
/// through a directory the user can write) is code of the user's choosing running as that
/// program, with no variable in its environment to show for it. Such a caller matches no rule.
///
/// Checked: every file mapped executable in /proc/PID/maps, except the program itself (pinned by
/// its hash), seen through /proc/PID/root (the caller's own view of the file system). A file is
/// changeable when the user owns it or anyone else may write it, or when any directory above it
/// is owned by the user or writable by others without the sticky bit; a mapping of a file since
/// replaced or deleted is judged by its directories alone. Code in a memory file (`memfd`) has no
/// file to judge and always counts. For root, owning a file says nothing (root owns the
/// system): only group and other write bits count.
///
/// Not seen: code loaded after the caller was identified (its identity is kept while the same
/// executable runs, `PeerProcess`), and code that is not mapped from a file (an interpreter's
/// modules in source form, a JIT's anonymous pages).
enum MappedCode {
    /// One line of /proc/PID/maps: "start-end perms offset dev inode   path".
    struct Mapping: Equatable {
        var executable: Bool
        var inode: UInt64
        var path: String
        var deleted: Bool

        init?(_ line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].count == 4, let inode = UInt64(fields[4]) else { return nil }
            var path = String(fields[5].drop { $0 == " " })
            guard path.hasPrefix("/") else { return nil }
            deleted = path.hasSuffix(" (deleted)")
            if deleted { path.removeLast(" (deleted)".count) }
            executable = fields[1].dropFirst(2).first == "x"
            self.inode = inode
            self.path = path
        }
    }

    /// Why the process whose maps are `maps` runs code its user can change, as "it runs code from
    /// /home/a/lib/libx.so, which its user can change"; nil when it does not. `root` is the
    /// process's root directory as vaultd reaches it ("/proc/PID/root"), `uid` the user's,
    /// `executable` the program itself as the maps name it.
    static func reason(maps: String, root: String, uid: UInt32, executable: String?) -> String? {
        var judge = Judge(root: root, uid: uid)
        var seen = Set<String>()
        for line in maps.split(separator: "\n") {
            guard let mapping = Mapping(line), mapping.executable, mapping.path != executable,
                  seen.insert(mapping.path).inserted else { continue }
            if mapping.path.hasPrefix("/memfd:") { return "it runs code from a memory file (\(mapping.path.dropFirst()))" }
            if judge.changeable(mapping) { return "it runs code from \(mapping.path), which its user can change" }
        }
        return nil
    }

    /// Judges files and directories for one user, each directory once.
    private struct Judge {
        let root: String
        let uid: UInt32
        var directories: [String: Bool] = [:]

        mutating func changeable(_ mapping: Mapping) -> Bool {
            if !mapping.deleted, let file = try? FileStatus.of(root + mapping.path), file.inode == mapping.inode,
               file.owner == uid && uid != 0 || file.permissions & 0o022 != 0 {
                return true
            }
            var directory = FileSystem.parentDirectory(of: mapping.path)
            while true {
                if changeable(directory: directory) { return true }
                guard directory != "/" else { return false }
                directory = FileSystem.parentDirectory(of: directory)
            }
        }

        /// A directory the user can rename entries in. One that cannot be read counts, since
        /// what is below it cannot be judged.
        mutating func changeable(directory: String) -> Bool {
            if let known = directories[directory] { return known }
            let verdict: Bool
            if let status = try? FileStatus.of(root + directory) {
                let othersWrite = status.permissions & 0o022 != 0 && status.permissions & UInt32(S_ISVTX) == 0
                verdict = status.owner == uid && uid != 0 || othersWrite
            } else {
                verdict = true
            }
            directories[directory] = verdict
            return verdict
        }
    }
}
