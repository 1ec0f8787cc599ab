#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import VaultCLI
import VaultClient
import VaultCore

/// What `run --env-file`, `inject` and masking read from outside, in-process.
@Suite struct ReferenceInputTests {
    func variables(_ text: String) throws -> [String: String] {
        Dictionary(try EnvFile(path: "test.env", bytes: Array(text.utf8)).variables.map { ($0.name, $0.value) }) { $1 }
    }

    @Test func dotenvSyntax() throws {
        let parsed = try variables("""
            # a comment

            PLAIN=value with spaces  # trailing comment
            export EXPORTED=yes
            EQUALS=a=b=c
            SINGLE='it is # not a comment $HOME'
            DOUBLE="line\\nnext \\"quoted\\" \\$HOME"
              SPACED = 1
            EMPTY=
            HASH=a#b
            REF=vault://svc/acct?field=x
            CRLF=windows\r
            """)
        #expect(parsed["PLAIN"] == "value with spaces")
        #expect(parsed["EXPORTED"] == "yes")
        #expect(parsed["EQUALS"] == "a=b=c" && parsed["SINGLE"] == "it is # not a comment $HOME")
        #expect(parsed["DOUBLE"] == "line\nnext \"quoted\" \\$HOME")
        #expect(parsed["SPACED"] == "1" && parsed["EMPTY"] == "" && parsed["HASH"] == "a#b")
        #expect(parsed["REF"] == "vault://svc/acct?field=x" && parsed["CRLF"] == "windows")
        #expect(try variables("A='x' # c")["A"] == "x")
        #expect(try variables("export=1")["export"] == "1")
    }

    /// A CRLF file reads exactly like its LF twin, line numbers included: `"\r\n"` is one Swift
    /// Character, and splitting at "\n" once ran the command with no variables at all.
    @Test func crlfFilesReadLikeTheirLFTwin() throws {
        let lf = "# leading comment\nA=1\nexport B='two'\nC=\"3\\n\" # c\n\nD=vault://s/a\n"
        let twin = try EnvFile(path: "f", bytes: Array(lf.utf8)).variables
        #expect(twin.count == 4)
        let crlf = try EnvFile(path: "f", bytes: Array(lf.replacingOccurrences(of: "\n", with: "\r\n").utf8)).variables
        #expect(crlf.map(\.name) == twin.map(\.name) && crlf.map(\.value) == twin.map(\.value))
        #expect {
            _ = try EnvFile(path: "f", bytes: Array("A=1\r\nB=2\r\nbad line\r\n".utf8))
        } throws: { "\($0)".contains("'f':3:") }
    }

    @Test(arguments: [
        ("A=1\nnot a line\n", 2),
        ("1A=x", 1),
        ("=x", 1),
        ("A", 1),
        ("A='unclosed", 1),
        ("\n\nA=\"unclosed", 3),
        ("A='x' trailing", 1),
        ("A=\"x\"#glued", 1),
        ("A-B=1", 1),
    ])
    func badLinesNameFileAndLineNeverTheirText(_ text: String, _ line: Int) {
        #expect {
            _ = try EnvFile(path: "secrets.env", bytes: Array(text.utf8))
        } throws: { error in
            let message = "\(error)"
            return message.contains("'secrets.env':\(line):") && !message.contains("unclosed") && !message.contains("trailing")
        }
    }

    @Test func nulAndNonUTF8AreRefused() {
        #expect(throws: VaultError.self) { try EnvFile(path: "f", bytes: [65, 61, 0, 10]) }
        #expect(throws: VaultError.self) { try EnvFile(path: "f", bytes: [65, 61, 0xFF]) }
    }

    @Test func maskingLongestFirstAcrossReadsAndAtTheEnd() {
        let masker = SecretMasker([Array("abc".utf8), Array("abcdef".utf8), []])
        var stream = SecretMasker.Stream()
        var output = masker.mask(Array("x abcd".utf8), &stream)
        #expect(String(decoding: output, as: UTF8.self) == "x ")
        output += masker.mask(Array("ef abc y ab".utf8), &stream)
        output += masker.mask([], &stream, atEnd: true)
        #expect(String(decoding: output, as: UTF8.self) == "x <concealed by vault> <concealed by vault> y ab")
        // Byte by byte, a later secret added.
        masker.add(Array("zz".utf8))
        var one = SecretMasker.Stream(), all: [UInt8] = []
        for byte in Array("-abcdef-zz-abc".utf8) { all += masker.mask([byte], &one) }
        all += masker.mask([], &one, atEnd: true)
        #expect(String(decoding: all, as: UTF8.self) == "-<concealed by vault>-<concealed by vault>-<concealed by vault>")
    }

    @Test func templatePlaceholdersAndHostileOnes() throws {
        let template = try Template(Array("a={{ vault://svc/acct }} b={{vault://x?field=k}} keep={{ other }}\n".utf8), name: "t")
        #expect(template.references.map(\.text) == ["vault://svc/acct", "vault://x?field=k"])
        let values = Dictionary(uniqueKeysWithValues: template.references.map { ($0, SecretBytes(utf8: $0.service.uppercased())) })
        #expect(String(decoding: template.render(values), as: UTF8.self) == "a=SVC b=X keep={{ other }}\n")
        #expect(throws: VaultError.self) { try Template(Array("\nx={{ vault://svc\n}}".utf8), name: "t") }
        #expect(throws: VaultError.self) { try Template(Array("{{ vault://a b }}".utf8), name: "t") }
        #expect(throws: VaultError.self) { try Template(Array("{{ vault://a%zz }}".utf8), name: "t") }
        #expect(throws: VaultError.self) { try Template(Array("{{ vault://".utf8), name: "t") }
    }

    @Test func refreshActions() throws {
        #expect(try Commands.refreshAction("restart") == .restart)
        #expect(try Commands.refreshAction("HUP") == .signal(SIGHUP))
        #expect(try Commands.refreshAction("SIGUSR1") == .signal(SIGUSR1))
        #expect(throws: UsageError.self) { try Commands.refreshAction("KILL") }
        #expect(throws: UsageError.self) { try Commands.refreshAction("hup\n") }
    }
}
