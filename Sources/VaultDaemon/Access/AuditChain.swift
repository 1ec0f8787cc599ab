import VaultProtocol

/// How the audit log's records hang together, and what a reader checks. Each vaultd process
/// writing the log keeps one chain (a random `chain` id): its records are numbered from 1
/// (`seq`), and each binds the tag of the one before (`prev`, the AES-GCM tag of its sealed line),
/// so no record can be dropped, repeated, moved or swapped for one of another place without the
/// numbers or the links showing it. The head of a chain (its last `seq` and tag) is known beyond
/// the file: vaultd holds its own while it runs, and the vault holds the heads of earlier
/// processes (`AuditHeads`), so records cut off the end, or the whole file rolled back to an
/// older copy, show as missing too. Rotation drops the oldest file: a chain may begin after 1,
/// and the first record left is where the reader's window begins.
package struct AuditChain {
    /// One record as read: its entry and the tag of its sealed line (base64).
    package struct Link {
        var entry: AuditEntryBody
        var tag: String

        package init(entry: AuditEntryBody, tag: String) {
            self.entry = entry
            self.tag = tag
        }
    }

    /// A chain's last record as known beyond the file.
    package struct Head: Codable, Sendable, Equatable {
        var seq: Int64
        var tag: String
        /// When it was written (RFC 3339), to keep the newest heads.
        var time: String

        package init(seq: Int64, tag: String, time: String) {
            self.seq = seq
            self.tag = tag
            self.time = time
        }
    }

    /// What is wrong with `links` (every record read, in any order), given the heads known beyond
    /// the file by chain id: one sentence a problem, empty when every chain holds. Records
    /// without a chain (written before chaining) are not checked.
    package static func problems(_ links: [Link], heads: [String: Head]) -> [String] {
        var problems: [String] = []
        var chains: [String: [Link]] = [:]
        for link in links {
            guard let chain = link.entry.chain, link.entry.seq != nil else { continue }
            chains[chain, default: []].append(link)
        }
        for (chain, records) in chains.sorted(by: { $0.key < $1.key }) {
            let sorted = records.sorted { $0.entry.seq! < $1.entry.seq! }
            let name = "chain \(chain.prefix(8))"
            for (previous, record) in zip(sorted, sorted.dropFirst()) {
                let (before, seq) = (previous.entry.seq!, record.entry.seq!)
                if seq == before {
                    problems.append("\(name): record \(seq) is in the log twice (\(record.entry.time)): a record was replayed")
                } else if seq > before + 1 {
                    problems.append("\(name): records \(before + 1) to \(seq - 1) are missing between \(previous.entry.time) and \(record.entry.time): they were deleted")
                } else if record.entry.prev != previous.tag {
                    problems.append("\(name): record \(seq) (\(record.entry.time)) does not follow record \(before): the log was rearranged or records were replaced")
                }
            }
            if let first = sorted.first, first.entry.seq! > 1, first.entry.prev == nil {
                problems.append("\(name): record \(first.entry.seq!) claims to be the first")
            }
            if let head = heads[chain], let last = sorted.last {
                if last.entry.seq! < head.seq {
                    problems.append("\(name): records \(last.entry.seq! + 1) to \(head.seq) are missing after \(last.entry.time): the log was cut or rolled back to an older copy")
                } else if last.entry.seq! == head.seq, last.tag != head.tag {
                    problems.append("\(name): record \(head.seq) is not the one written: the log was rolled back or replaced")
                }
            }
        }
        // Chains the vault knows that left no record at all: rotated away only if the oldest
        // record left is younger than their last.
        let start = window(links)
        for (chain, head) in heads.sorted(by: { $0.key < $1.key }) where chains[chain] == nil && head.seq > 0 && start.map({ $0 <= head.time }) ?? true {
            problems.append("chain \(chain.prefix(8)): its records up to \(head.seq), written until \(head.time), are missing: the log was rolled back to an older copy or deleted")
        }
        return problems
    }

    /// Where the records read begin: the earliest record's time, for people ("the log holds
    /// records from ...").
    static func window(_ links: [Link]) -> String? {
        links.map(\.entry.time).min()
    }
}
