import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultStores
import VaultTestSupport

/// One connection over a socketpair: pipelined requests answered in order, blank lines ignored,
/// an oversized line refused before it is parsed and the connection closed.
@Suite struct ConnectionTests {
    func serve(_ input: [UInt8], closeWriting: Bool = true) throws -> [String] {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let daemonSide = FileDescriptor(rawValue: fds[0]), clientSide = FileDescriptor(rawValue: fds[1])
        defer { clientSide.close() }
        let directory = TemporaryDirectory(prefix: "vault-connection")
        let configuration = DaemonConfiguration(socketPath: directory.file("s"), vaultFilePath: directory.file("v.db"), environment: [:])
        let logger = Logger(handler: RecordingLogHandler())
        let dispatcher = RequestDispatcher(
            store: ActiveStore(store: InMemoryStore(), reason: "test"), catalog: StoreCatalog(configuration: configuration),
            socketPath: configuration.socketPath, logger: logger)
        let closed = DispatchSemaphore(value: 0)
        let connection = Connection(number: 1, fd: daemonSide, peerPID: getpid(), dispatcher: dispatcher, logger: logger, idleTimeout: 5)
        #expect(connection.start { closed.signal() })
        try clientSide.sendAll(input)
        if closeWriting { shutdown(clientSide.rawValue, Int32(SHUT_WR)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try clientSide.read(into: $0) }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        #expect(closed.wait(timeout: .now() + 10) == .success)
        return String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws {
        let lines = try serve(Array(("""
            {"id":1,"op":"set","service":"s","account":"a","secret":"x"}

            \t
            not json
            {"id":2,"op":"get","service":"s","account":"a"}\r
            {"id":3,"op":"delete","service":"s","account":"a"}

            """).utf8))
        #expect(lines.count == 4)
        #expect(lines[0].contains(#""id":1"#) && lines[0].contains(#""ok":true"#))
        #expect(lines[1].contains(#""id":null"#) && lines[1].contains("bad_request"))
        #expect(lines[2].contains(#""id":2"#) && lines[2].contains(#""secret":"x""#))
        #expect(lines[3].contains(#""id":3"#) && lines[3].contains(#""ok":true"#))
    }

    @Test func anOversizedLineIsRefusedBeforeItEndsAndTheConnectionCloses() throws {
        // No newline ever comes: the cap is checked as bytes arrive.
        let lines = try serve([UInt8](repeating: UInt8(ascii: "a"), count: MessageCodec.maxRequestBytes + 10), closeWriting: false)
        #expect(lines.count == 1 && lines[0].contains("too_large"))
    }
}
