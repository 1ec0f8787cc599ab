import Testing
@testable import VaultProtocol

/// `put(decimal:)` writes what `String(number)` writes, through both sinks (`ExactBuffer`).
@Suite struct ByteSinkDecimalTests {
    struct Decimal: ExactlyWritten {
        let number: Int64
        func write<Sink: ByteSink>(to sink: inout Sink) { sink.put(decimal: number) }
    }

    static let edges: [Int64] = [0, 1, -1, 9, 10, -9, -10, 99, 100, 999_999_999, 1_000_000_000, Int64(Int32.max), Int64(Int32.min),
                                 Int64.max, Int64.max - 1, Int64.min, Int64.min + 1, 1_000_000_000_000_000_000, -1_000_000_000_000_000_000]

    @Test(arguments: edges) func edgesAreWrittenAsStringWritesThem(_ number: Int64) {
        #expect(ExactBuffer.written(Decimal(number: number)) == Array(String(number).utf8))
    }

    @Test func randomNumbersOfEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            // Every magnitude from 1 to 19 digits, both signs.
            let number = Int64.random(in: Int64.min...Int64.max, using: &generator) >> Int64.random(in: 0...62, using: &generator)
            #expect(ExactBuffer.written(Decimal(number: number)) == Array(String(number).utf8))
        }
    }
}
