import Testing
import VaultCore
import VaultProtocol

/// Framing, limits, and that no byte of a line stays in the buffer's storage once handed out.
@Suite struct LineBufferTests {
    @Test func splitsLinesAcrossChunksAndDropsCR() {
        var buffer = LineBuffer(limit: 100)
        buffer.append(Array("{\"a\":1}\r\n{\"b\"".utf8))
        var next = buffer.next()
        #expect(next == .line(Array("{\"a\":1}".utf8)))
        next = buffer.next()
        #expect(next == .needMore)
        buffer.append(Array(":2}\n".utf8))
        next = buffer.next()
        #expect(next == .line(Array("{\"b\":2}".utf8)))
        next = buffer.next()
        #expect(next == .needMore)
        let empty = buffer.isEmpty
        #expect(empty)
    }

    @Test func refusesALongLineBeforeItIsComplete() {
        var buffer = LineBuffer(limit: 10)
        buffer.append([UInt8](repeating: 65, count: 11))
        let early = buffer.next()
        #expect(early == .tooLong)
        var complete = LineBuffer(limit: 10)
        complete.append([UInt8](repeating: 65, count: 11) + [10])
        let late = complete.next()
        #expect(late == .tooLong)
        var exact = LineBuffer(limit: 10)
        exact.append([UInt8](repeating: 65, count: 10) + [10])
        let fits = exact.next()
        #expect(fits == .line([UInt8](repeating: 65, count: 10)))
        let chunked = LineBufferTests.lines(of: [UInt8](repeating: 66, count: 10), limit: 10, chunk: 3)
        #expect(chunked == [[UInt8](repeating: 66, count: 10)])
    }

    /// The CR of a CRLF ending is not part of the line (docs/protocol.md): a line of exactly the
    /// limit fits with it, whether the CR arrives with the newline or alone before it; one byte
    /// more does not, nor does a line whose own bytes end in CR past the limit.
    @Test func aCRBeforeTheNewlineDoesNotCountTowardTheLimit() {
        let exact = [UInt8](repeating: 65, count: 10)
        var whole = LineBuffer(limit: 10)
        whole.append(exact + [13, 10])
        #expect(whole.next() == .line(exact))
        var split = LineBuffer(limit: 10)
        split.append(exact + [13])
        #expect(split.next() == .needMore)
        split.append([10])
        #expect(split.next() == .line(exact))
        var over = LineBuffer(limit: 10)
        over.append(exact + [65, 13, 10])
        #expect(over.next() == .tooLong)
        var early = LineBuffer(limit: 10)
        early.append(exact + [13, 13])
        #expect(early.next() == .tooLong)
    }

    /// Every line of `text` + "\n", appended `chunk` bytes at a time.
    static func lines(of text: [UInt8], limit: Int, chunk: Int) -> [[UInt8]] {
        var buffer = LineBuffer(limit: limit)
        var result: [[UInt8]] = []
        let input = text + [10]
        var offset = 0
        while offset < input.count {
            buffer.append(Array(input[offset..<min(offset + chunk, input.count)]))
            offset += chunk
            while case .line(let line) = buffer.next() { result.append(line) }
        }
        return result
    }

    @Test func pipelinedLinesComeOutInOrderWhateverTheChunking() {
        let lines = (0..<500).map { Array("{\"op\":\"status\",\"id\":\($0)}".utf8) }
        let stream = Array(lines.joined(separator: [10]))
        for chunk in [1, 7, 64, 4096, stream.count + 1] {
            #expect(LineBufferTests.lines(of: stream, limit: 1000, chunk: chunk) == lines, "chunk \(chunk)")
        }
    }

    @Test func aLineIsWipedFromTheStorageOnceHandedOut() {
        let canary = Array("canary-7f3a9c".utf8)
        var buffer = LineBuffer(limit: 1 << 20)
        buffer.append(canary + [10] + Array("{\"rest\":".utf8))
        let first = buffer.next()
        #expect(first == .line(canary))
        let holds = buffer.withStorage { contains($0, canary) }
        #expect(!holds)
        // The unread rest survives, and goes too once consumed.
        buffer.append(Array("1}\n".utf8))
        let second = buffer.next()
        #expect(second == .line(Array("{\"rest\":1}".utf8)))
        let zero = buffer.withStorage { $0.allSatisfy { $0 == 0 } }
        #expect(zero)
    }

    @Test func growingAndCompactingLeaveNoStaleCopies() {
        let canary = Array("canary-growth-51e2".utf8)
        var buffer = LineBuffer(limit: 1 << 20)
        // A partial line holding the canary, then enough bytes to force several reallocations.
        buffer.append(canary)
        for _ in 0..<10 { buffer.append([UInt8](repeating: 0x61, count: 3000)) }
        let grown = buffer.capacity
        #expect(grown >= canary.count + 30_000)
        buffer.append([10])
        guard case .line(let line) = buffer.next() else { Issue.record("no line"); return }
        #expect(Array(line.prefix(canary.count)) == canary)
        let clean = buffer.withStorage { !contains($0, canary) && $0.allSatisfy { $0 == 0 } }
        #expect(clean)

        // Compaction: a line's tail moved to the front leaves nothing behind where it was.
        var small = LineBuffer(limit: 1 << 20)
        small.append([UInt8](repeating: 0x62, count: 4000) + [10] + canary)
        _ = small.next()
        small.append([UInt8](repeating: 0x63, count: 4000))
        let copies = small.withStorage { occurrences($0, canary) }
        #expect(copies == 1)
        small.clear()
        let cleared = small.capacity
        #expect(cleared == 0)
    }

    /// 200,000 short lines in one buffer: consuming them searches each byte once and never
    /// shifts the rest (which would move about 3.4 * 10^11 bytes). Counted, not timed: a timed
    /// bound fails on a slow or sanitized build and proves nothing on a fast one.
    @Test func pipelinedShortLinesCostLinearWork() {
        let line = Array("{\"op\":\"status\"}\n".utf8)
        var buffer = LineBuffer(limit: 1 << 24)
        buffer.append(Array([[UInt8]](repeating: line, count: 200_000).joined()))
        let appended = buffer.work
        var count = 0
        while case .line = buffer.next() { count += 1 }
        #expect(count == 200_000)
        #expect(buffer.work - appended == line.count * 200_000)
    }

    /// Lines arriving a byte at a time: each byte is searched once however the stream is cut.
    @Test func bytesArrivingOneAtATimeAreSearchedOnce() {
        let text = Array("{\"op\":\"get\",\"service\":\"s\"}\r\n".utf8)
        var buffer = LineBuffer(limit: 1024)
        var lines = 0
        for _ in 0..<50 {
            for byte in text {
                buffer.append([byte])
                while case .line = buffer.next() { lines += 1 }
            }
        }
        #expect(lines == 50)
        // Searched once each, and moved at most once each when the storage is compacted.
        #expect(buffer.work <= 2 * text.count * 50)
    }
}

func occurrences(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Int {
    guard needle.count <= haystack.count else { return 0 }
    var count = 0
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if (0..<needle.count).allSatisfy({ haystack[start + $0] == needle[$0] }) { count += 1 }
    }
    return count
}

func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool { occurrences(haystack, needle) > 0 }
