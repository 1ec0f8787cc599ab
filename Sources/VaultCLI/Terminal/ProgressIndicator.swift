import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import VaultCore
import VaultSystem

/// A small spinner on stderr while a network call runs, only when stderr is a terminal.
enum ProgressIndicator {
    static func `while`<R>(_ label: String, _ body: () throws -> R) rethrows -> R {
        guard Terminal.isTerminal(2) else { return try body() }
        let running = AdaptiveLock(true)
        let finished = DispatchSemaphore(value: 0)
        Thread.start {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var index = 0
            while running.withLock({ $0 }) {
                Output.write(Array("\r\(frames[index % frames.count]) \(label)…".utf8), to: 2)
                index += 1
                usleep(80_000)
            }
            Output.write(Array("\r\u{1B}[K".utf8), to: 2)
            finished.signal()
        }
        defer {
            running.withLock { $0 = false }
            finished.wait()
        }
        return try body()
    }
}

private enum Thread {
    static func start(_ body: @escaping @Sendable () -> Void) {
        DetachedThread.start(stackSize: 256 * 1024, body)
    }
}
