#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore
import VaultCrypto
import VaultDaemon
import VaultProtocol

/// The audit log as `vaultctl audit` reads it: lines of sealed records, then the chains checked.
/// A line starting with `{` is a record's plaintext, sealed under a fixed key first so mutations
/// reach the record's decoder and the chain checks; any other line is read as it is. A record
/// that opens encodes (AuditEntryEncoder) to JSON that decodes to the same record, and whether
/// the chains hold does not depend on the order the records were read in.
enum AuditLogTarget: FuzzTarget {
    static let name = "audit-log"
    static let maxLength = 8192

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let key = VaultFileTarget.dataKey
        var links: [AuditChain.Link] = []
        var heads: [String: AuditChain.Head] = [:]
        for line in input.split(separator: 0x0A) {
            var sealedLine = line
            if line.first == UInt8(ascii: "{") {
                guard let box = try? AESGCM.seal(Array(line), key: key, authenticating: AuditLog.associatedData, nonce: VaultFileTarget.nonce) else { continue }
                sealedLine = ArraySlice(Array(Data(box.nonce + box.ciphertext + box.tag).base64EncodedString().utf8))
            }
            guard let (entry, tag) = AuditLog.open(sealedLine, key: key) else { continue }
            let encoded = AuditEntryEncoder.encode(entry)
            guard let decoded = try? JSONDecoder().decode(AuditEntryBody.self, from: Data(encoded)) else {
                throw FuzzFinding("a record that opened, encoded by AuditEntryEncoder, does not decode")
            }
            try FuzzFinding.check(decoded == entry, "a record that opened encodes to another record")
            links.append(AuditChain.Link(entry: entry, tag: tag))
            if let chain = entry.chain, let seq = entry.seq { heads[chain] = AuditChain.Head(seq: seq, tag: tag, time: entry.time) }
        }
        for known in [[:], heads] {
            let forward = AuditChain.problems(links, heads: known), backward = AuditChain.problems(links.reversed(), heads: known)
            try FuzzFinding.check(forward.isEmpty == backward.isEmpty, "whether the chains hold depends on the order records were read in")
        }
    }
}
