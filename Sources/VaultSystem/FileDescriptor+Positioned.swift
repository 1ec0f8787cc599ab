#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads and writes at an offset, and the calls an append-only file needs: cutting it back and
/// making its data durable.
extension FileDescriptor {
    /// Reads exactly `count` bytes at `offset`; fewer only when the file ends first.
    public func read(count: Int, at offset: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = try result.withUnsafeMutableBytes { buffer in
                try retryingOnInterrupt { pread(rawValue, buffer.baseAddress! + done, count - done, off_t(offset + done)) }
            }
            if got == 0 { break }
            done += got
        }
        return done == count ? result : Array(result[0..<done])
    }

    /// Writes every byte of `bytes` at `offset`, looping over short writes.
    public func write(_ bytes: [UInt8], at offset: Int) throws {
        try bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let observer = StorageEvents.observer
                var count = buffer.count - done
                if let observer {
                    count = min(count, try observer.willChange(.write(fd: rawValue, offset: offset + done, bytes: Array(bytes[done...]))) ?? count)
                }
                let written = try retryingOnInterrupt { pwrite(rawValue, buffer.baseAddress! + done, count, off_t(offset + done)) }
                observer?.didChange(.write(fd: rawValue, offset: offset + done, bytes: Array(bytes[done..<(done + written)])))
                done += written
            }
        }
    }

    /// Sets the file's size to `length` (cutting it, or extending it with zeros).
    public func truncate(to length: Int) throws {
        let observer = StorageEvents.observer
        _ = try observer?.willChange(.truncate(fd: rawValue, length: length))
        _ = try retryingOnInterrupt { ftruncate(rawValue, off_t(length)) }
        observer?.didChange(.truncate(fd: rawValue, length: length))
    }

    /// `fdatasync`: the data and the size are durable (not the modification time).
    public func syncData() throws {
        let observer = StorageEvents.observer
        _ = try observer?.willChange(.sync(fd: rawValue))
        _ = try retryingOnInterrupt { fdatasync(rawValue) }
        observer?.didChange(.sync(fd: rawValue))
    }
}
