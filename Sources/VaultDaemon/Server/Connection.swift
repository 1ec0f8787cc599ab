#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import VaultCore
import VaultProtocol

/// One client connection, served by its own thread with blocking reads: a request wakes exactly
/// one thread, which answers it inline. The number of these threads is capped by
/// `--max-connections`; an idle connection ends when its receive timeout (`--idle-timeout`) expires.
final class Connection: Sendable {
    let number: Int
    let peerPID: Int32
    private let fd: FileDescriptor
    private let dispatcher: RequestDispatcher
    private let logger: Logger
    private let idleTimeout: Double
    /// False once the thread has closed the descriptor: `stopReading` must then not touch it.
    private let isOpen = Mutex(true)

    init(number: Int, fd: FileDescriptor, peerPID: Int32, dispatcher: RequestDispatcher, logger: Logger, idleTimeout: Double) {
        self.number = number
        self.fd = fd
        self.peerPID = peerPID
        self.dispatcher = dispatcher
        self.logger = logger
        self.idleTimeout = idleTimeout
    }

    /// Starts the connection's thread; `onClose` runs on it after the socket is closed.
    func start(onClose: @escaping @Sendable () -> Void) -> Bool {
        DetachedThread.start(stackSize: 512 * 1024) { [self] in
            serve()
            onClose()
        }
    }

    /// Ends the connection after the request in progress, if any, has been answered.
    func stopReading() {
        isOpen.withLock { open in
            if open { _ = shutdown(fd.rawValue, Int32(SHUT_RD)) }
        }
    }

    private func serve() {
        UnixSocket.setTimeouts(fd, seconds: 10)
        UnixSocket.setReceiveTimeout(fd, seconds: idleTimeout)
        var lines = LineBuffer(limit: MessageCodec.maxRequestBytes)
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        defer {
            lines.clear()
            scratch.withUnsafeMutableBytes { SecretBytes.wipe($0) }
            isOpen.withLock { open in
                open = false
                fd.close()
            }
        }
        while true {
            switch lines.next() {
            case .line(var line):
                defer { line.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                guard send(dispatcher.handle(line: &line)) else { return }
                continue
            case .tooLong:
                logger.warning("connection \(number) (pid \(peerPID)) sent a request over \(MessageCodec.maxRequestBytes) bytes; closing it")
                _ = send(ResponseLine(id: nil, .failure(ErrorBody(
                    .tooLarge, "request line over \(MessageCodec.maxRequestBytes / 1024) KiB; the connection is closed"))))
                return
            case .needMore:
                break
            }
            let count: Int
            do {
                count = try scratch.withUnsafeMutableBytes { try fd.read(into: $0) }
            } catch let error as Errno {
                if error == .wouldBlock { logger.debug("connection \(number) closed after \(Int(idleTimeout)) s idle") }
                return
            } catch {
                return
            }
            if count == 0 { return }
            scratch.withUnsafeBytes { lines.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            scratch.withUnsafeMutableBytes { SecretBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    private func send(_ response: ResponseLine) -> Bool {
        var bytes = MessageCodec.encode(response)
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        do {
            try fd.sendAll(bytes)
            return true
        } catch {
            logger.debug("connection \(number): write failed (\(error)); closing")
            return false
        }
    }
}
