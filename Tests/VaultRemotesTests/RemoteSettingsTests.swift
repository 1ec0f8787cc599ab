import Testing
import VaultCore
import VaultRemotes

@Suite struct RemoteSettingsTests {
    func settings(_ url: String, mount: String? = nil, prefix: String? = nil, auth: RemoteAuth = RemoteAuth(method: .token)) -> RemoteSettings {
        RemoteSettings(name: "team", url: url, mount: mount, prefix: prefix, auth: auth)
    }

    @Test func addressesAreHTTPSOrLoopback() throws {
        #expect(try settings("https://bao.example:8200/").validated().url == "https://bao.example:8200")
        #expect(try settings("http://127.0.0.1:8200").validated().url == "http://127.0.0.1:8200")
        #expect(try settings("http://localhost:8200").validated().url == "http://localhost:8200")
        for url in ["http://bao.example:8200", "ftp://x", "https://", "https://bao.example/v1", "https://u:p@bao.example", "bao.example", "https://h?x=1"] {
            #expect(throws: VaultError.self, "\(url)") { try settings(url).validated() }
        }
    }

    @Test func namesPathsAndAuthOptionsAreChecked() throws {
        for bad in ["", "-x", "a b", "a/b", String(repeating: "a", count: 65), "é"] { #expect(RemoteName.problem(with: bad) != nil, "\(bad)") }
        for good in ["team", "a.b_c-1", "9"] { #expect(RemoteName.problem(with: good) == nil) }
        for bad in ["", "/a", "a/", "a//b", "a/../b", ".", "a\u{7}"] { #expect(KVPath.problem(with: bad) != nil, "\(bad)") }
        #expect(KVPath.problem(with: "a/b/", folder: true) == nil && KVPath.problem(with: "", folder: true) == nil)
        #expect(throws: VaultError.self) { try settings("https://h", auth: RemoteAuth(method: .approle)).validated() }
        #expect(throws: VaultError.self) { try settings("https://h", auth: RemoteAuth(method: .token, username: "u")).validated() }
        #expect(throws: VaultError.self) { try settings("https://h", auth: RemoteAuth(method: .jwt, role: "r", jwtFile: "relative")).validated() }
        #expect(try settings("https://h", auth: RemoteAuth(method: .jwt, role: "r", jwtFile: "/run/ci/token")).validated().auth.needsSecret == false)
    }

    @Test func enginePathsEncodeEverySegment() throws {
        let plain = try settings("https://h", mount: "/kv/", prefix: "team/").validated()
        #expect(plain.mount == "kv" && plain.prefix == "team")
        #expect(plain.enginePath("data", try KVPath("app/db")) == "/v1/kv/data/team/app/db")
        #expect(plain.enginePath("data", try KVPath("a b/c?d#e%f")) == "/v1/kv/data/team/a%20b/c%3Fd%23e%25f")
        #expect(plain.enginePath("metadata", try KVPath("", folder: true)) == "/v1/kv/metadata/team/")
        let bare = try settings("https://h").validated()
        #expect(bare.enginePath("metadata", try KVPath("app/", folder: true)) == "/v1/secret/metadata/app/")
    }
}
