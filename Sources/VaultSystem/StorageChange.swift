/// A call that changes stored files, as `StorageEvents` reports it.
package enum StorageChange: Sendable {
    /// `bytes` written at `offset` of the open file `fd` (`pwrite`, or `write` at its position).
    case write(fd: Int32, offset: Int, bytes: [UInt8])
    case truncate(fd: Int32, length: Int)
    /// `fsync` or `fdatasync` of a file: its data and size are durable.
    case sync(fd: Int32)
    /// `path` opened with `O_CREAT` as `fd` (new, or an existing file of that name).
    case create(path: String, fd: Int32)
    case rename(from: String, to: String)
    case link(from: String, to: String)
    case unlink(path: String)
    /// `fsync` of a directory: the names in it (creations, renames, links, removals) are durable.
    case syncDirectory(path: String)
}
