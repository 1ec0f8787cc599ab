import VaultCore

/// One git configuration file's text, read just enough to tell whether it could set a variable:
/// whether a name appears in it at all (git's variable names are letters, digits and `-`,
/// compared without case, and cannot be escaped or split, so a file that could set the variable
/// holds its name), and which files its `include.path` and `includeIf.<condition>.path`
/// settings add (git-config(1), "Includes").
package struct GitConfigText {
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether `name` (lowercase ASCII) appears anywhere, in any case.
    package func mentions(_ name: String) -> Bool {
        let needle = Array(name.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        outer: for start in 0...(bytes.count - needle.count) {
            for (offset, byte) in needle.enumerated() where Self.lowercased(bytes[start + offset]) != byte { continue outer }
            return true
        }
        return false
    }

    /// The paths the include sections name, as written (whatever their condition); nil when one
    /// is written in a way this reading does not follow: quoted, escaped, empty, a variable on a
    /// section's header line, or any line continued onto the next.
    package func includePaths() -> [String]? {
        var paths: [String] = []
        var inInclude = false
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            var line = Substring(decoding: rawLine, as: UTF8.self).drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            if String(line).trimming([" ", "\t", "\r"]).hasSuffix("\\") { return nil }  // continued onto the next line
            if line.first == "[" {
                guard let close = line.firstIndex(of: "]") else { return nil }
                let name = line.dropFirst().prefix { $0 != " " && $0 != "\t" && $0 != "\"" && $0 != "]" && $0 != "." }.lowercased()
                inInclude = name == "include" || name == "includeif"
                line = line[line.index(after: close)...].drop { $0 == " " || $0 == "\t" || $0 == "\r" }
                if line.isEmpty || line.first == "#" || line.first == ";" { continue }
                if inInclude { return nil }
                continue
            }
            guard inInclude else { continue }
            let name = line.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            guard name.lowercased() == "path" else { continue }
            var value = line.dropFirst(name.count).drop { $0 == " " || $0 == "\t" }
            guard value.first == "=" else { return nil }
            value = value.dropFirst()
            if let comment = value.firstIndex(where: { $0 == "#" || $0 == ";" }) { value = value[..<comment] }
            let path = String(value).trimming([" ", "\t", "\r"])
            guard !path.isEmpty, !path.contains("\""), !path.contains("\\"), !path.contains("\u{FFFD}") else { return nil }
            paths.append(path)
        }
        return paths
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
