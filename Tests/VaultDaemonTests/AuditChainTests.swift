import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultTestSupport

/// The audit log's chains, checked: each way of tampering with the records a program of the user
/// can reach (the file, not the key) is named, and an intact log has nothing to say.
@Suite struct AuditChainTests {
    typealias Link = AuditChain.Link

    /// A chain of `count` records: record n's tag is "t<n>", its `prev` the tag before.
    static func chain(_ id: String, _ count: Int64, from first: Int64 = 1) -> [Link] {
        (first...count).map { seq in
            var entry = AuditEntryBody(time: String(format: "2026-12-04T10:00:%02d.000000Z", seq), op: "get", service: "s", account: "a", result: "ok", pid: 1, exe: "/x")
            (entry.chain, entry.seq, entry.prev) = (id, seq, seq == 1 ? nil : "t\(seq - 1)")
            return Link(entry: entry, tag: "t\(seq)")
        }
    }

    static func head(_ seq: Int64, tag: String? = nil) -> AuditChain.Head {
        AuditChain.Head(seq: seq, tag: tag ?? "t\(seq)", time: String(format: "2026-12-04T10:00:%02d.000000Z", seq))
    }

    @Test func anIntactLogHoldsInAnyOrderAndBesideOtherChains() {
        let links = Self.chain("aaaa", 6) + Self.chain("bbbb", 3)
        #expect(AuditChain.problems(links.shuffled(), heads: ["aaaa": Self.head(6), "bbbb": Self.head(3)]).isEmpty)
        // Records from before chaining are not checked.
        var legacy = Self.chain("cccc", 1)[0]
        (legacy.entry.chain, legacy.entry.seq, legacy.entry.prev) = (nil, nil, nil)
        #expect(AuditChain.problems(links + [legacy], heads: [:]).isEmpty)
    }

    @Test func eachTamperingIsNamed() {
        let links = Self.chain("aaaa", 6)
        let deleted = AuditChain.problems(links.filter { $0.entry.seq != 3 && $0.entry.seq != 4 }, heads: ["aaaa": Self.head(6)])
        #expect(deleted.count == 1 && deleted[0].contains("records 3 to 4 are missing"), "\(deleted)")
        let replayed = AuditChain.problems(links + [links[1]], heads: [:])
        #expect(replayed.count == 1 && replayed[0].contains("record 2 is in the log twice"), "\(replayed)")
        var swapped = links
        swapped[3].entry.prev = "t1"
        let rearranged = AuditChain.problems(swapped, heads: [:])
        #expect(rearranged.count == 1 && rearranged[0].contains("record 4") && rearranged[0].contains("does not follow"), "\(rearranged)")
        let cut = AuditChain.problems(Array(links.prefix(4)), heads: ["aaaa": Self.head(6)])
        #expect(cut.count == 1 && cut[0].contains("records 5 to 6 are missing after"), "\(cut)")
        let replaced = AuditChain.problems(links, heads: ["aaaa": Self.head(6, tag: "another")])
        #expect(replaced.count == 1 && replaced[0].contains("is not the one written"), "\(replaced)")
        let gone = AuditChain.problems(Self.chain("bbbb", 2), heads: ["aaaa": Self.head(6)])
        #expect(gone.count == 1 && gone[0].contains("aaaa") && gone[0].contains("missing"), "\(gone)")
        let emptied = AuditChain.problems([], heads: ["aaaa": Self.head(6)])
        #expect(emptied.count == 1, "\(emptied)")
    }

    @Test func rotationMovesTheWindowWithoutAProblem() {
        // The oldest file rotated away: the chain begins at 4, and its first record says what came before.
        #expect(AuditChain.problems(Self.chain("aaaa", 9, from: 4), heads: ["aaaa": Self.head(9)]).isEmpty)
        // A chain that ended before the window's first record, its records all rotated away.
        var later = Self.chain("bbbb", 2)
        for index in later.indices { later[index].entry.time = "2026-12-05T10:00:0\(index).000000Z" }
        #expect(AuditChain.problems(later, heads: ["bbbb": Self.head(2), "aaaa": Self.head(6)]).isEmpty)
        // Its last record written after the window began: it should be there.
        let recent = AuditChain.Head(seq: 6, tag: "t6", time: "2026-12-06T10:00:00.000000Z")
        #expect(AuditChain.problems(later, heads: ["aaaa": recent]).count == 1)
        #expect(AuditChain.window(later) == "2026-12-05T10:00:00.000000Z")
        // One that claims to be first while later than 1 is not a rotation.
        var forged = Self.chain("aaaa", 5, from: 3)
        forged[0].entry.prev = nil
        #expect(AuditChain.problems(forged, heads: [:]).contains { $0.contains("claims to be the first") })
    }
}
