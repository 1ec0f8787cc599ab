#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultSystem

/// Who sent a request line, in-process: the state a connection keeps (`MessageSenders`), and
/// the kernel's answers on a socket pair, with a pidfd per message (Linux 6.5+) and without one
/// (Debian 12's 6.1 path: the pid, checked by start time).
@Suite struct MessageSendersTests {
    @Test func aLineIsItsOneSendersOrNobodys() {
        var senders = MessageSenders()
        senders.received(from: 100, connector: 100) { Issue.record("the connector needs no look-up"); return nil }
        guard case .connector = senders.sender(connector: 100) else { Issue.record("not the connector"); return }
        senders.received(from: 200, connector: 100) { PeerProcess(pidfd: nil, pid: 200) }
        guard case .unknown = senders.sender(connector: 100) else { Issue.record("two senders are nobody"); return }
        senders.clear()
        senders.received(from: 200, connector: 100) { PeerProcess(pidfd: nil, pid: 200) }
        guard case .other(let process) = senders.sender(connector: 100) else { Issue.record("not the other sender"); return }
        #expect(process.pid == 200)
        senders.clear()
        // A sender that could not be held (gone, or its pid reused since) is nobody.
        senders.received(from: 300, connector: 100) { nil }
        guard case .unknown = senders.sender(connector: 100) else { Issue.record("an unheld sender was named"); return }
        senders.clear()
        guard case .connector = senders.sender(connector: 100) else { Issue.record("nothing buffered is the connection's"); return }
    }

    /// A connected pair whose `receiver` passes senders.
    func pair() throws -> (sender: Int32, receiver: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        var on: Int32 = 1
        try #require(setsockopt(ends[1], SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size)) == 0)
        return (ends[0], ends[1])
    }

    /// Descriptors of this process open on what 0, 1 and 2 are open on (other tests running
    /// beside this one open other files).
    func openDescriptors() -> Int {
        let targets = Set((0...2).compactMap { PeerProcess.readLink("/proc/self/fd/\($0)") })
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return all.filter { PeerProcess.readLink("/proc/self/fd/" + $0).map(targets.contains) == true }.count
    }

    @Test(arguments: [true, false]) func theKernelNamesTheSenderOfEachRead(pidfds: Bool) throws {
        let (sender, receiver) = try pair()
        defer { close(sender); close(receiver) }
        #expect(write(sender, "{}\n", 3) == 3)
        var buffer = [UInt8](repeating: 0, count: 16)
        var pid: pid_t = 0
        #expect(vault_peek_from_sender(receiver, &buffer, buffer.count, &pid) == 3)
        #expect(pid == getpid())
        // Held while its bytes are the next unread: by the pidfd given with them, or opened on the pid.
        let process = try #require(MessageSenders.open(socket: FileDescriptor(rawValue: receiver), pid: getpid(), pidfds: pidfds))
        defer { process.close() }
        #expect(process.identify().executable == PeerProcess.readLink("/proc/self/exe"))
        // Not the sender of those bytes: none.
        #expect(MessageSenders.open(socket: FileDescriptor(rawValue: receiver), pid: getppid(), pidfds: pidfds) == nil)
    }

    @Test func descriptorsSentAlongAreClosedUnread() throws {
        let (sender, receiver) = try pair()
        defer { close(sender); close(receiver) }
        let before = openDescriptors()
        // One byte with three descriptors attached (SCM_RIGHTS).
        var payload: UInt8 = 0x7B
        var fds: [Int32] = [0, 1, 2]
        let space = 64
        var control = [UInt8](repeating: 0, count: space)
        let sent = withUnsafeMutablePointer(to: &payload) { byte in
            control.withUnsafeMutableBytes { controlBuffer in
                fds.withUnsafeMutableBytes { descriptors in
                    var vector = iovec(iov_base: byte, iov_len: 1)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBuffer.baseAddress
                        let length = MemoryLayout<cmsghdr>.size + descriptors.count
                        message.msg_controllen = (length + 7) & ~7
                        let header = controlBuffer.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                        header.pointee.cmsg_len = length
                        header.pointee.cmsg_level = SOL_SOCKET
                        header.pointee.cmsg_type = Int32(SCM_RIGHTS)
                        (controlBuffer.baseAddress! + MemoryLayout<cmsghdr>.size).copyMemory(from: descriptors.baseAddress!, byteCount: descriptors.count)
                        return sendmsg(sender, &message, 0)
                    }
                }
            }
        }
        try #require(sent == 1)
        var buffer = [UInt8](repeating: 0, count: 16)
        var pid: pid_t = 0
        for _ in 0..<3 { #expect(vault_peek_from_sender(receiver, &buffer, buffer.count, &pid) == 1) }
        #expect(openDescriptors() == before, "a peek left descriptors open")
    }
}
