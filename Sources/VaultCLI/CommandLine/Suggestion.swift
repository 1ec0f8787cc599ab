/// The closest of a set of known words to a mistyped one, for "did you mean" hints.
///
/// Distance is the optimal-string-alignment edit distance (insertions, deletions, substitutions
/// and swaps of neighbours each cost one). A word is suggested when it is at most two edits away
/// and fewer edits than the typed word has characters (so "x" suggests nothing), or when the typed
/// word is a prefix of exactly one known word. Ties go to the earlier word in `candidates`.
enum Suggestion {
    static func closest(to typed: String, among candidates: [String]) -> String? {
        guard !typed.isEmpty else { return nil }
        let word = Array(typed.lowercased().unicodeScalars)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word, Array(candidate.lowercased().unicodeScalars))
            guard distance <= 2, distance < word.count else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        if let best { return best.candidate }
        let extensions = candidates.filter { $0.hasPrefix(typed) }
        return extensions.count == 1 ? extensions[0] : nil
    }

    /// " (did you mean 'list'?)" or "".
    static func hint(for typed: String, among candidates: [String], prefix: String = "") -> String {
        closest(to: typed, among: candidates).map { " (did you mean '\(prefix)\($0)'?)" } ?? ""
    }

    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        // Names are short (under 30 characters), and a typed word longer than a few hundred
        // cannot be two edits from one of them.
        guard abs(a.count - b.count) <= 2 else { return Int.max }
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
