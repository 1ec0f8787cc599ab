/// One libFuzzer target: a parser of outside input, run on any bytes, with oracles beyond "no
/// crash" (round trips, a fast path equal to the general decoder, CRLF read like LF). A Swift
/// trap or a sanitizer report is a finding by itself; an oracle that does not hold throws one.
package protocol FuzzTarget {
    /// The name `scripts/fuzz` and the corpus folders use: `Fuzz/Corpus/NAME`, `Fuzz/Dictionaries/NAME.dict`.
    static var name: String { get }
    /// The longest input worth trying (libFuzzer's `-max_len`).
    static var maxLength: Int { get }
    static func run(_ input: [UInt8]) throws(FuzzFinding)
}

/// An oracle that did not hold, with what was seen (never secret: fuzz inputs are made up).
package struct FuzzFinding: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) { self.description = description }

    /// Throws unless `condition` holds.
    package static func check(_ condition: Bool, _ what: @autoclosure () -> String) throws(FuzzFinding) {
        if !condition { throw FuzzFinding(what()) }
    }
}

/// A target as the runner and the replay tests use it.
package struct FuzzTargetEntry: Sendable {
    package let name: String
    package let maxLength: Int
    package let run: @Sendable ([UInt8]) throws(FuzzFinding) -> Void

    init<Target: FuzzTarget>(_ target: Target.Type) {
        name = Target.name
        maxLength = Target.maxLength
        run = { input throws(FuzzFinding) in try Target.run(input) }
    }
}

/// Every target, by name.
package enum FuzzTargets {
    package static let all: [FuzzTargetEntry] = [
        FuzzTargetEntry(RequestLineTarget.self),
        FuzzTargetEntry(ResponseLineTarget.self),
        FuzzTargetEntry(ConfigFileTarget.self),
        FuzzTargetEntry(EnvFileTarget.self),
        FuzzTargetEntry(TemplateTarget.self),
        FuzzTargetEntry(ReferenceTarget.self),
        FuzzTargetEntry(GitInputTarget.self),
        FuzzTargetEntry(DockerInputTarget.self),
        FuzzTargetEntry(VaultFileTarget.self),
        FuzzTargetEntry(VaultRecordTarget.self),
        FuzzTargetEntry(AuditLogTarget.self),
        FuzzTargetEntry(ProviderAnswerTarget.self),
        FuzzTargetEntry(SessionImportTarget.self),
        FuzzTargetEntry(DBusArgumentsTarget.self),
    ]

    package static func named(_ name: String) -> FuzzTargetEntry? {
        all.first { $0.name == name }
    }
}

/// A text's twins with LF and with CRLF line ends; nil when they are not well defined (a CR
/// right before a CRLF would itself end a line once the CRLF is an LF).
package func lineEndTwins(_ bytes: [UInt8]) -> (lf: [UInt8], crlf: [UInt8])? {
    var lf: [UInt8] = []
    lf.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
        lf.append(bytes[index])
        index += 1
    }
    for index in lf.indices.dropLast() where lf[index] == 0x0D && lf[index + 1] == 0x0A { return nil }
    if lf.last == 0x0D { return nil }
    var crlf: [UInt8] = []
    for byte in lf {
        if byte == 0x0A { crlf.append(0x0D) }
        crlf.append(byte)
    }
    return (lf, crlf)
}
