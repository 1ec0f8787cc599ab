import CVaultShims
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol

/// One client connection. All its state is confined to its own serial queue; requests on one
/// connection are answered in order, connections run concurrently on Dispatch's bounded pool.
final class Connection: @unchecked Sendable {
    let number: Int
    let fd: FileDescriptor
    let peerPID: Int32
    let queue: DispatchQueue
    private let dispatcher: RequestDispatcher
    private let logger: Logger
    private var source: DispatchSourceRead?
    private var lines = LineBuffer(limit: MessageCodec.maxRequestBytes)
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    private(set) var lastActivity = Clock.monotonicSeconds()
    private var closed = false

    init(number: Int, fd: FileDescriptor, peerPID: Int32, dispatcher: RequestDispatcher, logger: Logger, target: DispatchQueue) {
        self.number = number
        self.fd = fd
        self.peerPID = peerPID
        self.dispatcher = dispatcher
        self.logger = logger
        queue = DispatchQueue(label: "vaultd.connection.\(number)", target: target)
    }

    /// Starts reading; `onClose` runs once, on the connection's queue, after the socket is closed.
    func start(onClose: @escaping @Sendable () -> Void) {
        // A client that stops reading cannot hold a worker thread forever.
        UnixSocket.setTimeouts(fd, seconds: 10)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: queue)
        source.setEventHandler { [self] in readAvailable() }
        source.setCancelHandler { [self] in
            lines.clear()
            scratch.withUnsafeMutableBytes { SecretBytes.wipe($0) }
            fd.close()
            onClose()
        }
        self.source = source
        source.resume()
    }

    /// Closes the connection after the request in progress, if any, has been answered.
    func close() {
        queue.async { [self] in closeNow() }
    }

    func closeIfIdle(longerThan seconds: Double) {
        queue.async { [self] in
            if !closed && Clock.monotonicSeconds() - lastActivity > seconds {
                logger.debug("connection \(number) closed after \(Int(seconds)) s idle")
                closeNow()
            }
        }
    }

    private func closeNow() {
        guard !closed else { return }
        closed = true
        source?.cancel()
    }

    private func readAvailable() {
        guard !closed else { return }
        let count: Int
        do {
            count = try scratch.withUnsafeMutableBytes { try fd.read(into: $0) }
        } catch {
            closeNow()
            return
        }
        if count == 0 {
            closeNow()
            return
        }
        lastActivity = Clock.monotonicSeconds()
        scratch.withUnsafeBytes { lines.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        scratch.withUnsafeMutableBytes { SecretBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
        while !closed {
            switch lines.next() {
            case .needMore:
                return
            case .tooLong:
                logger.warning("connection \(number) (pid \(peerPID)) sent a request over \(MessageCodec.maxRequestBytes) bytes; closing it")
                send(.failure(nil, code: VaultErrorCode.tooLarge.rawValue,
                              message: "request line over \(MessageCodec.maxRequestBytes / 1024) KiB; the connection is closed"))
                closeNow()
            case .line(var line):
                defer { line.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                send(dispatcher.handle(line: line))
            }
        }
    }

    private func send(_ response: Response) {
        var bytes = MessageCodec.encode(response)
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        do {
            try fd.sendAll(bytes)
        } catch {
            logger.debug("connection \(number): write failed (\(error)); closing")
            closeNow()
        }
    }
}
