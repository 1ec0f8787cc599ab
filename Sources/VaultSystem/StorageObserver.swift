/// Observes the calls that change stored files and may fail them. The seam the power-loss and
/// fault-injection tests use, as SQLite's tests use their own VFS: `FileDescriptor` and
/// `FileSystem` report each change to the observers added to `StorageEvents`, which record it or
/// make it fail (an `Errno`, or a short write). None is added outside tests; a call then costs
/// one atomic load.
package protocol StorageObserver: AnyObject, Sendable {
    /// Before a change: throws to fail it; for a write, may return fewer bytes than asked for,
    /// which the call then writes (a short write; the caller loops and asks again).
    func willChange(_ change: StorageChange) throws -> Int?
    /// After a change took effect (a write: the bytes written).
    func didChange(_ change: StorageChange)
}
