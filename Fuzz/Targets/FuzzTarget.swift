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
