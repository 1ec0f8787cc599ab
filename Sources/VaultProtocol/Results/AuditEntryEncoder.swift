/// An audit record's JSON (the plaintext vaultd seals into one line of audit.log), written
/// straight into one exact-size buffer: keys in sorted order, absent fields left out, strings
/// escaped as `JSONEncoder` escapes them with `.withoutEscapingSlashes`, byte for byte what it
/// writes with `[.sortedKeys, .withoutEscapingSlashes]` (tests compare the two). `JSONDecoder`
/// reads it back; `JSONEncoder` took about half of a cached `get`'s instructions once the
/// caller and the rules were cached.
public enum AuditEntryEncoder {
    public static func encode(_ entry: AuditEntryBody) -> [UInt8] {
        ExactBuffer.written(Record(entry: entry))
    }

    private struct Record: ExactlyWritten {
        let entry: AuditEntryBody

        func write<Sink: ByteSink>(to sink: inout Sink) {
            var first = true
            func key(_ name: StaticString) {
                sink.put(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
                first = false
                sink.put(UInt8(ascii: "\""))
                sink.put(name)
                sink.put(UInt8(ascii: "\""))
                sink.put(UInt8(ascii: ":"))
            }
            func field(_ name: StaticString, _ value: String?) {
                guard let value else { return }
                key(name)
                JSONString.quoted(value, into: &sink)
            }
            field("account", entry.account)
            field("chain", entry.chain)
            field("exe", entry.exe)
            field("grant", entry.grant)
            field("op", entry.op)
            if let pid = entry.pid {
                key("pid")
                sink.put(decimal: pid)
            }
            field("prev", entry.prev)
            field("result", entry.result)
            field("script", entry.script)
            if let seq = entry.seq {
                key("seq")
                sink.put(decimal: seq)
            }
            field("service", entry.service)
            field("time", entry.time)
            field("unit", entry.unit)
            if first { sink.put(UInt8(ascii: "{")) }
            sink.put(UInt8(ascii: "}"))
        }
    }
}
