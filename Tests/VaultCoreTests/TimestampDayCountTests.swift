#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import VaultCore

/// Timestamp's own day count against glibc's `timegm`, which it replaced for speed.
@Suite struct TimestampDayCountTests {
    @Test func everyDayFromYear1To9999CountsAsTimegmDoes() {
        var parts = tm()
        for year in stride(from: 1, through: 9999, by: 7) {
            for month in 1...12 {
                for day in [1, 15, 28, 29, 30, 31] {
                    parts = tm()
                    parts.tm_year = Int32(year - 1900)
                    parts.tm_mon = Int32(month - 1)
                    parts.tm_mday = Int32(day)
                    let expected = Int64(timegm(&parts)) / 86400
                    #expect(Timestamp.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day)) == expected, "\(year)-\(month)-\(day)")
                }
            }
        }
        // The leap years' rules: 2000 is one, 1900 and 2100 are not.
        for text in ["2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2100-03-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z"] {
            var parts = tm()
            let bytes = Array(text.utf8)
            func field(_ range: Range<Int>) -> Int32 { Int32(String(decoding: bytes[range], as: UTF8.self))! }
            parts.tm_year = field(0..<4) - 1900
            parts.tm_mon = field(5..<7) - 1
            parts.tm_mday = field(8..<10)
            parts.tm_hour = field(11..<13)
            parts.tm_min = field(14..<16)
            parts.tm_sec = field(17..<19)
            let fraction: Int64 = text.contains(".") ? 999_000 : 0
            #expect(Timestamp.microseconds(rfc3339: text) == Int64(timegm(&parts)) * 1_000_000 + fraction, "\(text)")
        }
    }

    /// The formatter's own date fields against glibc's `gmtime_r`, which it replaced for speed:
    /// the edges of the four-digit years, leap days, the epoch, and 20,000 seconds drawn at random.
    @Test func formattingMatchesGmtimeAcrossTheFourDigitYears() {
        // The general path (glibc's broken-down time) is the oracle.
        func expected(_ seconds: Int64, fraction: Int64, digits: Int) -> String {
            Timestamp.formatFromGmtime(seconds: seconds, fraction: Int32(fraction), digits: digits)
        }
        var generator = SystemRandomNumberGenerator()
        let range = Timestamp.fourDigitYears
        var samples: [Int64] = [range.lowerBound, range.upperBound, 0, -1, 86_399, 86_400, 951_782_399, 951_782_400, 951_868_800, 4_107_542_400]
        for _ in 0..<20_000 { samples.append(Int64.random(in: range, using: &generator)) }
        for seconds in samples {
            let fraction = Int64.random(in: 0..<1000, using: &generator)
            #expect(Timestamp.rfc3339(milliseconds: seconds * 1000 + fraction) == expected(seconds, fraction: fraction, digits: 3), "\(seconds)")
            #expect(Timestamp.rfc3339(microseconds: seconds * 1_000_000 + fraction) == expected(seconds, fraction: fraction, digits: 6), "\(seconds)")
            #expect(Timestamp.microseconds(rfc3339: Timestamp.rfc3339(microseconds: seconds * 1_000_000 + fraction)) == seconds * 1_000_000 + fraction)
        }
        // Beyond them the general path writes what glibc says.
        #expect(Timestamp.rfc3339(milliseconds: (range.upperBound + 1) * 1000) == "10000-01-01T00:00:00.000Z")
    }
}
