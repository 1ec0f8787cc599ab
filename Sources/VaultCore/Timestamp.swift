#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 timestamps in UTC with milliseconds, e.g. `2026-11-30T12:04:05.123Z` (items), or
/// microseconds, `2026-11-30T12:04:05.123456Z` (audit records).
public enum Timestamp {
    /// `seconds` since the epoch, rounded to the millisecond.
    /// Never traps: a time that is not finite, or beyond what an Int64 of milliseconds holds,
    /// is clamped to the nearest representable one (checking that a time is plausible is the
    /// caller's business; see VaultTokens' `rfc3339(checkedSeconds:)`).
    public static func rfc3339(seconds: Double) -> String {
        let limit = 9.2e15  // milliseconds, well inside Int64 and gmtime_r's range
        let milliseconds = (seconds * 1000).rounded()
        guard !milliseconds.isNaN else { return rfc3339(milliseconds: 0) }
        return rfc3339(milliseconds: Int64(min(max(milliseconds, -limit), limit)))
    }

    public static func rfc3339(milliseconds: Int64) -> String {
        format(seconds: milliseconds.floorDivided(by: 1000), fraction: Int32(milliseconds.floorRemainder(by: 1000)), digits: 3)
    }

    /// With six digits of fraction: audit records, many of which may fall in one millisecond.
    public static func rfc3339(microseconds: Int64) -> String {
        format(seconds: microseconds.floorDivided(by: 1_000_000), fraction: Int32(microseconds.floorRemainder(by: 1_000_000)), digits: 6)
    }

    /// The first and last second of the years 0 to 9999, which the fast path writes.
    static var fourDigitYears: ClosedRange<Int64> { -62_167_219_200...253_402_300_799 }

    private static func format(seconds: Int64, fraction: Int32, digits: Int) -> String {
        guard fourDigitYears.contains(seconds) else { return formatFromGmtime(seconds: seconds, fraction: fraction, digits: digits) }
        // Every item in every answer carries two of these, every audit record one: the fields
        // computed here (no gmtime_r) and written as digits into the string's own buffer.
        let (year, month, day) = civil(fromDays: seconds.floorDivided(by: 86_400))
        let second = seconds.floorRemainder(by: 86_400)
        return String(unsafeUninitializedCapacity: 21 + digits) { buffer in
            var position = 0
            func put(_ value: Int64, _ width: Int, _ separator: UInt8) {
                var remaining = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                buffer[position + width] = separator
                position += width + 1
            }
            put(year, 4, UInt8(ascii: "-"))
            put(month, 2, UInt8(ascii: "-"))
            put(day, 2, UInt8(ascii: "T"))
            put(second / 3600, 2, UInt8(ascii: ":"))
            put(second / 60 % 60, 2, UInt8(ascii: ":"))
            put(second % 60, 2, UInt8(ascii: "."))
            put(Int64(fraction), digits, UInt8(ascii: "Z"))
            return position
        }
    }

    /// Years before 0 or after 9999 (never an item's or a record's time, but any Int64 a file
    /// holds must format without trapping): glibc's broken-down time, padded. Also the tests'
    /// oracle for the fast path.
    static func formatFromGmtime(seconds: Int64, fraction: Int32, digits: Int) -> String {
        var seconds = time_t(seconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(fraction, digits))Z"
    }

    /// The date `days` after 1970-01-01 in the proleptic Gregorian calendar: `civil_from_days`
    /// of H. Hinnant's "chrono-Compatible Low-Level Date Algorithms", the inverse of
    /// `daysSinceEpoch` (years counted from March 1, in eras of 400 years).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private extension Int64 {
    /// Division rounding toward negative infinity, so that times before 1970 keep a fraction in
    /// 0..<divisor; never overflows (`Int64.min` included: item times come from files).
    func floorDivided(by divisor: Int64) -> Int64 { self / divisor - (self % divisor < 0 ? 1 : 0) }
    func floorRemainder(by divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}

extension Timestamp {
    /// Milliseconds since the epoch from `YYYY-MM-DDTHH:MM:SS[.fff]Z` (what `rfc3339` writes), or
    /// nil when `text` is not of that form.
    public static func milliseconds(rfc3339 text: String) -> Int64? {
        parse(text, fractionDigits: 3).map { $0 / 1000 }
    }

    /// Microseconds since the epoch from `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` (one to six digits of
    /// fraction: an item's milliseconds or an audit record's microseconds), or nil.
    public static func microseconds(rfc3339 text: String) -> Int64? {
        parse(text, fractionDigits: 6)
    }

    /// Microseconds, with at most `fractionDigits` digits after the seconds. No allocation and
    /// no `timegm` (which took most of the time of reading a listing's 20,000 times).
    private static func parse(_ text: String, fractionDigits: Int) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count >= 20, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
            func number(_ range: Range<Int>) -> Int64? {
                var value: Int64 = 0
                for index in range {
                    guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
                    value = value * 10 + Int64(bytes[index] - 48)
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                  let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                  let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                  (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            else { return nil }
            var micros: Int64 = 0
            if bytes.count > 20 {
                guard bytes[19] == UInt8(ascii: "."), (22...(21 + fractionDigits)).contains(bytes.count),
                      let fraction = number(20..<(bytes.count - 1)) else { return nil }
                var scale: Int64 = 1
                for _ in (bytes.count - 21)..<6 { scale *= 10 }
                micros = fraction * scale
            } else if bytes[19] != UInt8(ascii: "Z") {
                return nil
            }
            let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second
            return seconds * 1_000_000 + micros
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar, what `timegm` counts
    /// (a day past the month's end runs into the next month, as there). `days_from_civil` of
    /// H. Hinnant's "chrono-Compatible Low-Level Date Algorithms": years are counted
    /// from March, so the leap day is the last of the year, in eras of 400 years (146,097 days).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
