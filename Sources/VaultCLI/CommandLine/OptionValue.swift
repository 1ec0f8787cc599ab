import VaultCore

/// What an option's value is, beyond text: the parser converts and checks it once, so a bad
/// value is a usage error before any handler runs, and the handler reads it typed
/// (`ParsedArguments.duration(_:)`, `.count(_:)`, `.fileMode(_:)`).
public enum OptionValueKind: Sendable, Equatable {
    case text
    /// Seconds from `60`, `90s`, `5m`, `2h`, `7d` (`DurationText`); `allowsZero`: `0` too.
    case duration(allowsZero: Bool)
    /// A whole number within the range.
    case count(ClosedRange<Int>)
    /// Octal permissions, `0600` or `640`, at most `0777`.
    case fileMode

    /// The value `text` stands for, nil when it is none of this kind.
    func value(of text: String) -> OptionValue? {
        switch self {
        case .text:
            return .text(text)
        case .duration(let allowsZero):
            if allowsZero && text == "0" { return .duration(0) }
            return DurationText.seconds(text).map(OptionValue.duration)
        case .count(let range):
            guard text.count <= 18, let number = Int(text), range.contains(number) else { return nil }
            return .count(number)
        case .fileMode:
            guard (1...4).contains(text.count), let mode = UInt32(text, radix: 8), mode <= 0o777 else { return nil }
            return .fileMode(mode)
        }
    }

    /// What a value must look like, after "--name".
    var expectation: String {
        switch self {
        case .text: "takes text"
        case .duration(let allowsZero): "takes a duration such as \(allowsZero ? "0, " : "")90s, 5m or 2h"
        case .count(let range): "takes a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .fileMode: "takes octal permissions such as 0600 or 640"
        }
    }
}

/// An option's value as the parser checked it.
public enum OptionValue: Sendable, Equatable {
    case text(String)
    case duration(Double)
    case count(Int)
    case fileMode(UInt32)
}

extension ParsedArguments {
    /// The value given for `option` (a duration option of the command's spec), nil when not given.
    public func duration(_ option: OptionSpec) -> Double? {
        guard case .duration(let seconds)? = value(option) else { return nil }
        return seconds
    }

    public func count(_ option: OptionSpec) -> Int? {
        guard case .count(let number)? = value(option) else { return nil }
        return number
    }

    public func fileMode(_ option: OptionSpec) -> UInt32? {
        guard case .fileMode(let mode)? = value(option) else { return nil }
        return mode
    }

    /// The choice given for `option`, as the enum whose raw values are its choices.
    public func choice<Choice: RawRepresentable>(_ option: OptionSpec, as type: Choice.Type) -> Choice? where Choice.RawValue == String {
        options[option.name].flatMap(Choice.init(rawValue:))
    }

    private func value(_ option: OptionSpec) -> OptionValue? {
        guard let text = options[option.name] else { return nil }
        // The parser checked it; one made by hand (a test) is checked here the same way.
        return option.kind.value(of: text)
    }
}
