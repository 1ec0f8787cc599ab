/// Durations as people type them on command lines: `90`, `90s`, `15m`, `2h`, `1d`.
public enum DurationText {
    /// The longest duration accepted: ten years.
    public static let maximum = 10 * 365 * 86_400.0

    /// Seconds, or nil when `text` is not a positive duration of at most `maximum`.
    public static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            scale = unit
            number = number.dropLast()
        }
        guard let value = Double(number), value > 0, value * scale <= maximum else { return nil }
        return value * scale
    }

    /// `seconds` as people say it, in its largest whole unit: `45 s`, `12 min`, `3 h`, `2 d`.
    public static func spoken(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? max(0, Int(seconds.rounded(.down))) : 0
        if whole < 120 { return "\(whole) s" }
        if whole < 7200 { return "\(whole / 60) min" }
        if whole < 172_800 { return "\(whole / 3600) h" }
        return "\(whole / 86400) d"
    }
}
