import Foundation

/// Reads another process's memory (`/proc/PID/maps` and `/proc/PID/mem`; the tests run as
/// root) to count copies of a canary: every readable mapping, heap, stacks and libraries alike.
enum ProcessMemory {
    static func occurrences(of needle: [UInt8], in pid: Int32) -> Int {
        guard let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else { return -1 }
        let fd = open("/proc/\(pid)/mem", O_RDONLY)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var count = 0
        let chunkSize = 1 << 20
        var chunk = [UInt8](repeating: 0, count: chunkSize + needle.count)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r") else { continue }
            if fields.count >= 6, fields[5] == "[vvar]" || fields[5] == "[vsyscall]" || fields[5] == "[vvar_vclock]" { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            var offset = bounds[0]
            var carried = 0  // bytes kept from the previous chunk, so a copy across chunks counts
            while offset < bounds[1] {
                let want = Int(min(UInt64(chunkSize), bounds[1] - offset))
                let got = chunk.withUnsafeMutableBytes { buffer in pread(fd, buffer.baseAddress! + carried, want, off_t(Int64(bitPattern: offset))) }
                if got <= 0 { break }
                let total = carried + got
                count += chunk.withUnsafeBytes { buffer in occurrences(of: needle, in: UnsafeRawBufferPointer(rebasing: buffer[0..<total])) }
                carried = min(needle.count - 1, total)
                chunk.withUnsafeMutableBytes { buffer in
                    buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + total - carried, byteCount: carried)
                }
                offset += UInt64(got)
            }
        }
        return count
    }

    private static func occurrences(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int {
        guard let base = haystack.baseAddress, needle.count <= haystack.count else { return 0 }
        var count = 0
        var position = 0
        let last = haystack.count - needle.count
        needle.withUnsafeBytes { needle in
            while position <= last, let found = memchr(base + position, Int32(needle[0]), last - position + 1) {
                let index = UnsafeRawPointer(found) - base
                if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { count += 1 }
                position = index + 1
            }
        }
        return count
    }

    /// Waits until `pid` holds no copy of `needle`, at most `seconds` (a connection's thread
    /// wipes its buffers just after the client has its answer); returns the copies last seen.
    static func copiesRemaining(of needle: [UInt8], in pid: Int32, within seconds: Double = 3) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let count = occurrences(of: needle, in: pid)
            if count == 0 || Date() >= deadline { return count }
            usleep(50_000)
        }
    }

    /// A canary no other process can hold: a prefix and `words` * 8 random hex digits.
    static func canary(_ prefix: String, words: Int = 3) -> String {
        prefix + "-" + (0..<words).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
    }
}
