/// Durations as people type them on command lines: `90`, `90s`, `15m`, `2h`, `1d`.
public enum DurationText {
    /// Seconds, or nil when `text` is not a positive duration.
    public static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            scale = unit
            number = number.dropLast()
        }
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        return value * scale
    }
}
