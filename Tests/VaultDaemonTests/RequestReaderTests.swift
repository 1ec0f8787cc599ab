import Testing
@testable import VaultDaemon
import VaultProtocol

/// The read loop's decisions with the clock in the test's hands: which bytes make a request,
/// when a request must be whole, when an idle connection is done, and when to spin.
@Suite struct RequestReaderTests {
    func reader(openedAt: Double = 100) -> RequestReader {
        RequestReader(openedAt: openedAt, idleTimeout: 60, requestTimeout: 5, spinBudget: 0.5)
    }

    func receive(_ reader: inout RequestReader, _ text: String) {
        Array(text.utf8).withUnsafeBytes { reader.received($0) }
    }

    /// Every request buffered, in order, then the buffer drained.
    func requests(_ reader: inout RequestReader) -> [String] {
        var found: [String] = []
        while case .request(let line) = reader.next() { found.append(String(decoding: line, as: UTF8.self)) }
        return found
    }

    @Test func pipelinedLinesAreRequestsInOrderAndBlankLinesAreNone() {
        var reader = reader()
        receive(&reader, "{\"id\":1}\n \t\n\n{\"id\":2}\n")
        #expect(requests(&reader) == ["{\"id\":1}", "{\"id\":2}"])
        let empty = reader.isEmpty
        #expect(empty)
        let (idleSince, wait) = reader.drained(at: 101)
        #expect(idleSince == 101 && wait == .wait(seconds: 60, spin: false))
    }

    @Test func blankLinesAloneAreNoProgress() {
        var reader = reader()
        receive(&reader, "\n \n")
        #expect(requests(&reader).isEmpty)
        // Idle since the connection opened: the idle time-out still counts from then.
        let (idleSince, wait) = reader.drained(at: 130)
        #expect(idleSince == 100 && wait == .wait(seconds: 30, spin: false))
        #expect(reader.drained(at: 160).wait == .expired(midRequest: false))
    }

    @Test func aPartLineMustBeWholeWithinTheRequestTimeoutOfItsFirstByte() {
        var reader = reader()
        receive(&reader, "{\"id\":")
        #expect(reader.next() == .drained)
        let first = reader.drained(at: 110)
        let midRequest = reader.isMidRequest
        #expect(first.idleSince == nil && first.wait == .wait(seconds: 5, spin: false) && midRequest)
        // More bytes trickling in do not restart the clock.
        receive(&reader, "1,")
        #expect(reader.next() == .drained)
        #expect(reader.drained(at: 113).wait == .wait(seconds: 2, spin: false))
        receive(&reader, "\"op\"")
        #expect(reader.next() == .drained)
        #expect(reader.drained(at: 115).wait == .expired(midRequest: true))
    }

    @Test func aReadThatEndsOneRequestAndBeginsAnotherStartsTheNewOnesClock() {
        var reader = reader()
        receive(&reader, "{\"id\":1}\n{\"id\"")
        #expect(requests(&reader) == ["{\"id\":1}"])
        let (idleSince, wait) = reader.drained(at: 120)
        #expect(idleSince == nil && wait == .wait(seconds: 5, spin: false))
    }

    @Test func aLineOverTheLimitIsRefusedBeforeItEnds() {
        var reader = reader()
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        var result = RequestReader.Next.drained
        for _ in 0...(MessageCodec.maxRequestBytes / chunk.count) {
            chunk.withUnsafeBytes { reader.received($0) }
            result = reader.next()
            if result != .drained { break }
        }
        #expect(result == .tooLong)
    }

    @Test func aConnectionSpinsOnlyAfterARequestThatCameBackToBack() {
        var reader = reader()
        receive(&reader, "{\"id\":1}\n")
        _ = requests(&reader)
        // One request answered: nothing says the client sends another at once.
        #expect(reader.drained(at: 100).wait == .wait(seconds: 60, spin: false))
        // The next came within the budget of that answer: spin after answering it.
        reader.woke(at: 100.25)
        receive(&reader, "{\"id\":2}\n")
        _ = requests(&reader)
        #expect(reader.drained(at: 100.5).wait == .wait(seconds: 60, spin: true))
        // The spin found nothing: sleep next time.
        reader.spun(ready: false)
        reader.woke(at: 130)
        receive(&reader, "{\"id\":3}\n")
        _ = requests(&reader)
        #expect(reader.drained(at: 130).wait == .wait(seconds: 60, spin: false))
    }
}
