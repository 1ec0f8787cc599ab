#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem
internal import VaultProtocol

/// A blocking connection to vaultd: one request, one response, in order, connecting (and
/// starting vaultd) on first use. Its operations are in `VaultConnection+Operations.swift`. Used
/// directly by vaultctl and the helpers (a CLI may block) and, on a private queue, by the async
/// `VaultClient`. Not thread-safe: use one per thread, or go through `VaultClient`.
public final class VaultConnection {
    public let socketPath: String
    public let autostart: Bool
    private let environment: [String: String]
    private let timeout: Double
    private var fd: FileDescriptor?
    private var lines = LineBuffer(limit: MessageCodec.maxResponseBytes)
    private var nextID: Int64 = 1

    /// `socketPath` nil: the usual location (`VAULT_SOCKET`, `$XDG_RUNTIME_DIR/vault/vault.sock`, …).
    /// `autostart` nil: on unless `VAULT_NO_AUTOSTART=1`.
    public init(socketPath: String? = nil, autostart: Bool? = nil, environment: [String: String] = ProcessEnvironment.current, timeout: Double = 30) {
        self.environment = environment
        self.socketPath = SocketLocation.path(explicit: socketPath, environment: environment)
        self.autostart = autostart ?? (environment["VAULT_NO_AUTOSTART"] != "1")
        self.timeout = timeout
    }

    deinit { fd?.close() }

    /// Sends `request` and returns its result, or throws the daemon's error. Every failure is a
    /// `VaultClientError`.
    func perform(_ request: Request) throws(VaultClientError) -> ResultBody {
        let id = RequestID.number(nextID)
        nextID += 1
        guard var bytes = MessageCodec.requestLine(RequestLine(id: id, request: request)) else {
            throw VaultClientError(code: .badRequest, message: "this request cannot be encoded (a number out of range?); nothing was sent")
        }
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        let answer: ResponseLine
        do {
            answer = try exchange(bytes)
        } catch {
            throw VaultClientError(error)
        }
        // A refusal sent before vaultd read the request (too many connections) carries no id.
        guard answer.id == id || answer.id == .null else {
            close()
            throw .malformedAnswer("the answer is for request \(answer.id), not \(id)")
        }
        switch answer.response {
        case .success(let result): return result
        case .failure(let error): throw VaultClientError(code: VaultErrorCode(rawValue: error.code) ?? .internal, message: error.message)
        }
    }

    public func close() {
        fd?.close()
        fd = nil
        lines.clear()
    }

    /// Sends one request and reads its answer. A request is never sent twice: if vaultd goes away
    /// after receiving it, it may already have acted on it (an add, a delete).
    private func exchange(_ bytes: [UInt8]) throws -> ResponseLine {
        let connection = try connected()
        do {
            try connection.sendAll(bytes)
            return try readResponse(connection)
        } catch let error as Errno where error == Errno(EPIPE) || error == Errno(ECONNRESET) {
            close()
            throw VaultClientError.unavailable(
                "vaultd on \(socketPath) closed the connection without answering (\(error)); it serves only the user it runs as, and may have stopped: see its log")
        }
    }

    /// True when a kept connection was closed by vaultd (idle timeout, restart): checked before
    /// sending, so a stale connection is replaced instead of failing the request.
    private func isClosedByPeer(_ fd: FileDescriptor) -> Bool {
        var byte: UInt8 = 0
        let result = recv(fd.rawValue, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if result < 0 { return Errno.current != .wouldBlock }
        return true  // 0: closed; > 0: bytes nobody asked for, so the stream is out of step
    }

    private func readResponse(_ connection: FileDescriptor) throws -> ResponseLine {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        defer { chunk.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        while true {
            switch lines.next() {
            case .line(var line):
                defer { line.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
                do {
                    return try MessageCodec.decode(ResponseLine.self, from: &line)
                } catch {
                    close()
                    throw VaultClientError(code: .internal, message: "vaultd sent a response this client cannot read: \(error)")
                }
            case .tooLong:
                close()
                throw VaultClientError(code: .internal, message: "vaultd sent a response over \(MessageCodec.maxResponseBytes) bytes")
            case .needMore:
                let count: Int
                do {
                    count = try chunk.withUnsafeMutableBytes { try connection.read(into: $0) }
                } catch let error as Errno where error == .wouldBlock {
                    close()
                    throw VaultClientError.unavailable("vaultd on \(socketPath) did not answer within \(Int(timeout)) s")
                }
                if count == 0 {
                    close()
                    throw Errno(ECONNRESET)
                }
                chunk.withUnsafeBytes { lines.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                chunk.withUnsafeMutableBytes { SecretBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
            }
        }
    }

    private func connected() throws -> FileDescriptor {
        if let fd {
            if !isClosedByPeer(fd) { return fd }
            close()
        }
        do {
            let fd = try connectOnce()
            self.fd = fd
            return fd
        } catch let error as VaultClientError {
            throw error  // someone else's directory or listener: never autostart over it
        } catch {
            // Nobody listens (yet): start vaultd below.
        }
        guard autostart else {
            throw VaultClientError.unavailable(
                "no vaultd answers on \(socketPath) (autostart is off); start it with 'vaultd &' or 'systemctl --user start vaultd.socket'")
        }
        let launched = try DaemonLauncher.start(socketPath: socketPath, environment: environment)
        var exited = false
        let deadline = Clock.monotonicSeconds() + 10
        var lastError: Error = Errno(ECONNREFUSED)
        while Clock.monotonicSeconds() < deadline {
            do {
                let fd = try connectOnce()
                self.fd = fd
                return fd
            } catch let error as VaultClientError {
                throw error
            } catch {
                lastError = error
                // A vaultd that lost the start-up race exits at once (another one answers): reap
                // it rather than leave a zombie in a long-running program. One that exits with
                // nobody answering could not start: say why at once, not after the deadline.
                if exited {
                    throw VaultClientError.unavailable(launched.failure())
                }
                var status: Int32 = 0
                if waitpid(launched.pid, &status, WNOHANG) == launched.pid {
                    exited = true
                    continue  // one more try: the winner of a race may be answering by now
                }
                usleep(10_000)
            }
        }
        throw VaultClientError.unavailable(
            "started vaultd, but it did not answer on \(socketPath) within 10 s (\(lastError)); see \(FileSystem.parentDirectory(of: socketPath))/vaultd.log")
    }

    /// Connects and checks who answers (`VaultConnection+Trust.swift`) before anything is sent.
    /// Throws `VaultClientError` when the directory or the listener is not the user's, `Errno`
    /// when nobody listens.
    private func connectOnce() throws -> FileDescriptor {
        guard try Self.checkSocketDirectory(of: socketPath) else { throw Errno.noSuchFile }
        let fd = try UnixSocket.stream()
        do {
            try UnixSocket.connect(fd, path: socketPath)
            try Self.checkPeer(fd, socketPath: socketPath)
        } catch {
            fd.close()
            throw error
        }
        UnixSocket.setTimeouts(fd, seconds: timeout)
        return fd
    }
}
