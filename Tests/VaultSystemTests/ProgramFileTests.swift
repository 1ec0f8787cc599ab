#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import VaultSystem

@Suite struct ProgramFileTests {
    private func file(_ bytes: [UInt8], in directory: String, named name: String) throws -> String {
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "program-file-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileSystem.createDirectories(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test func tellsACompiledProgramFromAScriptAndTheScriptsWords() throws {
        #expect(ProgramFile.of("/proc/self/exe") == .compiled)
        try withDirectory { directory in
            let script = try file(Array("#!/usr/bin/env -S python3 -u\nprint(1)\n".utf8), in: directory, named: "tool")
            #expect(ProgramFile.of(script) == .script(["/usr/bin/env", "-S", "python3", "-u"]))
            let tabs = try file(Array("#!\t/bin/sh\t-e".utf8), in: directory, named: "tabs")
            #expect(ProgramFile.of(tabs) == .script(["/bin/sh", "-e"]))
            let bare = try file(Array("#!   \nexit 0\n".utf8), in: directory, named: "bare")
            #expect(ProgramFile.of(bare) == .script([]))
        }
    }

    @Test func aFileThatIsNeitherOrCannotBeReadIsOther() throws {
        try withDirectory { directory in
            let plain = try file(Array("print(1)\n".utf8), in: directory, named: "plain")
            let empty = try file([], in: directory, named: "empty")
            let short = try file([0x7F, 0x45], in: directory, named: "short")
            #expect(ProgramFile.of(plain) == .other)
            #expect(ProgramFile.of(empty) == .other)
            #expect(ProgramFile.of(short) == .other)
            #expect(ProgramFile.of(directory + "/missing") == .other)
            #expect(ProgramFile.of(directory) == .other)
        }
    }

    /// A FIFO where a program was expected (nobody writing) answers at once instead of hanging.
    @Test func aFIFOGivesOtherWithoutWaiting() throws {
        try withDirectory { directory in
            let fifo = directory + "/fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            #expect(ProgramFile.of(fifo) == .other)
        }
    }

    /// Only the first 256 bytes are read: a longer `#!` line is cut there.
    @Test func aLongLineIsCutAtTheBytesRead() throws {
        try withDirectory { directory in
            let long = try file(Array(("#!/bin/sh " + String(repeating: "a", count: 400) + "\n").utf8), in: directory, named: "long")
            #expect(ProgramFile.of(long) == .script(["/bin/sh", String(repeating: "a", count: 256 - 10)]))
        }
    }
}
