#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import VaultCore
import VaultSystem

/// Who sent the bytes a connection has buffered since its line buffer was last empty. The kernel
/// names the sender of every message (SO_PASSCRED, `SocketListener`; SO_PASSPIDFD is turned on
/// only for a connection where another process sent, as it costs every read), and never joins two
/// senders' bytes in one read, so each read is one sender's. A request line is answered as its
/// sender's: the process that connected (its `PeerProcess`, kept for the connection), another
/// process that holds the socket (a child it forked, one it passed the socket to: held by a
/// pidfd taken while its bytes are the next unread), or nobody when the buffered bytes came from
/// more than one process (then no rule matches).
struct MessageSenders {
    enum Sender {
        case connector
        case other(PeerProcess)
        case unknown
    }

    /// Other processes identified for one buffer's worth of bytes, at most.
    static let maxOthers = 4

    private var pids: [Int32] = []
    private var others: [Int32: PeerProcess] = [:]

    /// Bytes sent by `pid` (0: the kernel named none) were buffered; `open` identifies a process
    /// other than `connector` while its bytes are still the socket's next unread ones.
    mutating func received(from pid: Int32, connector: Int32, open: () -> PeerProcess?) {
        guard !pids.contains(pid) else { return }
        pids.append(pid)
        guard pid != connector, pid != 0, others.count < Self.maxOthers, let process = open() else { return }
        others[pid] = process
    }

    /// The sender of every byte buffered, if one process sent them all.
    func sender(connector: Int32) -> Sender {
        guard pids.count <= 1 else { return .unknown }
        guard let pid = pids.first, pid != connector, pid != 0 else { return .connector }
        return others[pid].map(Sender.other) ?? .unknown
    }

    /// The buffer is empty: what was known of its senders goes.
    mutating func clear() {
        for process in others.values { process.close() }
        others = [:]
        pids = []
    }

    /// The process that sent the socket's next unread bytes, if it is `pid`: by the pidfd the
    /// kernel gives with them (SCM_PIDFD, Linux 6.5+), else by a pidfd opened on `pid` with a
    /// check that the process it names started no later than now (before 6.5 a pid reused between
    /// the send and this look is not told apart; docs/protocol.md, "The caller").
    /// `pidfds` false takes the pid path even where the kernel has pidfds (for tests of it).
    static func open(socket: FileDescriptor, pid: Int32, pidfds: Bool = true) -> PeerProcess? {
        var sender: pid_t = 0
        let given = vault_sender_pidfd(socket.rawValue, &sender, pidfds ? 1 : 0)
        guard sender == pid else {
            if given >= 0 { close(given) }
            return nil
        }
        if given >= 0 { return PeerProcess(pidfd: FileDescriptor(rawValue: given), pid: pid) }
        let now = vault_boot_ticks_now()
        let opened = vault_pidfd_open(pid)
        guard opened >= 0 else { return nil }
        let started = vault_process_start_ticks(pid)
        guard now >= 0, started >= 0, started <= now else {
            close(opened)
            return nil
        }
        return PeerProcess(pidfd: FileDescriptor(rawValue: opened), pid: pid)
    }
}
