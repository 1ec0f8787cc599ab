import Foundation
import Testing
import VaultCore
import VaultProtocol

/// Typed requests: `op` is read first, then only that operation's fields; encoding writes the
/// same flat objects docs/protocol.md shows.
@Suite struct RequestLineTests {
    func decode(_ json: String) throws -> RequestLine {
        try MessageCodec.decode(RequestLine.self, from: Array(json.utf8))
    }

    func roundTrip(_ request: Request) throws -> RequestLine {
        var line = MessageCodec.encode(RequestLine(id: .number(9), request: request))
        line.removeLast()
        return try MessageCodec.decode(RequestLine.self, from: line)
    }

    @Test func everyOperationRoundTripsThroughItsWireForm() throws {
        let oauth2 = OAuth2Settings(tokenEndpoint: "https://a.example/token", clientID: "cli", clientSecret: "s", scope: "x", revocationEndpoint: "https://a.example/revoke")
        let requests: [Request] = [
            .status, .get(ItemName(service: "s", account: "a")), .add(ItemWrite(service: "s", account: "a", secret: SecretBytes([0xff, 0]))),
            .set(ItemWrite(service: "s", account: "a", secret: SecretBytes(utf8: "t"), label: "L", comment: "C")),
            .delete(ItemName(service: "s", account: "a")), .list(ListRequest(service: "s")), .lock,
            .unlock(UnlockRequest(passphrase: SecretBytes(utf8: "p"))), .changePassphrase(PassphraseChange(current: SecretBytes(utf8: "a"), new: SecretBytes(utf8: "b"))),
            .migrate(MigrateRequest(destination: .secretService)), .doctor, .token(TokenRequest(service: "s", account: nil, minTTL: 5)),
            .login(SignInRequest(provider: .oauth2(oauth2), user: "alice", password: SecretBytes(utf8: "pw"), service: "svc")),
            .signup(SignInRequest(provider: .supabase(SupabaseSettings(projectURL: "https://p.supabase.co", apiKey: "k")), user: "a@b.co", password: SecretBytes(utf8: "pw"))),
            .resetPassword(ResetPasswordRequest(provider: .firebase(FirebaseSettings(apiKey: "k", emulatorURL: "http://127.0.0.1:9099")), email: "a@b.co")),
            .logout(SessionName(service: "s")), .importSession(SessionImport(service: "s", account: "a", session: SecretBytes(utf8: "{}"), defaults: SessionDefaults(provider: .supabase))),
            .deviceStart(DeviceStartRequest(deviceEndpoint: "https://a.example/device", clientID: "cli")),
            .devicePoll(DevicePollRequest(service: "s", client: oauth2, deviceCode: "dc")),
            .foreignList(ForeignQuery(schema: "docker", attributes: ["label": "Docker Credentials"])),
            .foreignGet(ForeignQuery(schema: "git", attributes: ["server": "h.example", "port": nil])),
            .foreignSet(ForeignWrite(schema: "docker", attributes: ["server": "s"], label: "s", secret: SecretBytes([0xff]))),
            .foreignDelete(ForeignQuery(schema: "git", attributes: ["server": "h.example"])),
            .allow(AccessRuleRequest(service: "s", account: "a", path: "/usr/bin/git")),
            .disallow(AccessRuleRequest(service: "s", account: "a", path: "/usr/bin/git")),
            .rules(AccessRuleRequest(service: "s", account: "a")),
            .audit(AuditRequest(since: "2026-01-01T00:00:00Z", wait: 5)),
            .approveNext(ApprovalWait(wait: 3)),
            .approveAnswer(ApprovalAnswer(id: 4, answer: "minutes", minutes: 5)),
            .setApprovalSecret(ApprovalSecretChange(secret: SecretBytes(utf8: "old"), new: SecretBytes(utf8: "new secret"))),
            .resolveCredential(CredentialRequest(
                helper: "git", service: "git:https://h.example", account: "alice", attributes: ["server": "h.example", "port": nil],
                sessionService: "forge", sessionAccount: "me")),
            .remoteAdd(RemoteAddRequest(name: "team", url: "https://bao.example:8200", maxAge: 3600, auth: "approle", roleID: "r", secret: SecretBytes(utf8: "sid"))),
            .remoteList, .remoteRemove(RemoteNameRequest(name: "team")), .remoteLogin(RemoteNameRequest(name: "team", secret: SecretBytes(utf8: "t"))),
            .kvGet(KVRequest(remote: "team", path: "app/db", field: "password", version: 2, refresh: true)),
            .kvPut(KVWrite(remote: "team", path: "app/db", field: "password", secret: SecretBytes(utf8: "p2"), force: true)),
            .kvDelete(KVRequest(remote: "team", path: "app/db")), .kvHistory(KVRequest(remote: "team", path: "app/db")),
            .kvList(KVRequest(remote: "team", path: "app/")),
            .spaceCreate(SpaceRequest(name: "home", remote: "team", path: "p", device: "laptop")), .spaceJoin(SpaceRequest(name: "home", remote: "team")),
            .spaceAdmit(SpaceRequest(name: "home", words: ["acid", "acorn"])), .spaceAdd(SpaceRequest(name: "home", service: "s", account: "a")),
            .spaceRemove(SpaceRequest(name: "home", service: "s", account: "a")), .spaceStatus(SpaceRequest(name: "home")),
            .spaceRemoveDevice(SpaceRequest(name: "home", device: "server")), .spaceSync(SpaceRequest(name: "home")),
            .spaceResolve(SpaceRequest(name: "home", service: "s", account: "a", keep: "copy")),
        ]
        #expect(Set(requests.map(\.operation)) == Set(Operation.allCases))
        for request in requests {
            let decoded = try roundTrip(request)
            #expect(decoded.id == .number(9))
            #expect(decoded.request.operation == request.operation)
        }
        guard case .remoteAdd(let addition) = try roundTrip(requests[requests.count - 18]).request else { Issue.record("not a remote_add"); return }
        #expect(addition.secret == SecretBytes(utf8: "sid") && addition.roleID == "r" && addition.maxAge == 3600 && addition.auth == "approle")
        guard case .kvPut(let put) = try roundTrip(requests[requests.count - 13]).request else { Issue.record("not a kv_put"); return }
        #expect(put.secret == SecretBytes(utf8: "p2") && put.field == "password" && put.force == true)
        let whole = KVWrite(remote: "team", path: "app/db", field: nil, secret: SecretBytes(utf8: #"{"user":"u"}"#))
        guard case .kvPut(let wholePut) = try roundTrip(.kvPut(whole)).request else { Issue.record("not a kv_put"); return }
        #expect(wholePut.field == nil && wholePut.secret == SecretBytes(utf8: #"{"user":"u"}"#))
        guard case .kvGet(let get) = try roundTrip(requests[requests.count - 14]).request else { Issue.record("not a kv_get"); return }
        #expect(get == KVRequest(remote: "team", path: "app/db", field: "password", version: 2, refresh: true))
        guard case .add(let write) = try roundTrip(requests[2]).request else { Issue.record("not an add"); return }
        #expect(write.secret == SecretBytes([0xff, 0]))
        guard case .login(let login) = try roundTrip(requests[12]).request else { Issue.record("not a login"); return }
        #expect(login.provider == .oauth2(oauth2) && login.user == "alice" && login.password == SecretBytes(utf8: "pw") && login.service == "svc")
        guard case .devicePoll(let poll) = try roundTrip(requests[18]).request else { Issue.record("not a poll"); return }
        #expect(poll.client == oauth2 && poll.deviceCode == "dc")
        guard case .foreignGet(let query) = try roundTrip(requests[20]).request else { Issue.record("not a foreign_get"); return }
        let expected: [String: String?] = ["server": "h.example", "port": nil]
        #expect(query.attributes == expected)
        let resolution = requests[requests.count - 19]
        guard case .resolveCredential(let credential) = try roundTrip(resolution).request, case .resolveCredential(let sent) = resolution else {
            Issue.record("not a resolve_credential")
            return
        }
        #expect(credential == sent)
        guard case .foreignSet(let foreignWrite) = try roundTrip(requests[21]).request else { Issue.record("not a foreign_set"); return }
        #expect(foreignWrite.secret == SecretBytes([0xff]) && foreignWrite.label == "s")
        // The approval's id rides in `request`: `id` is the envelope's.
        guard case .approveAnswer(let answer) = try roundTrip(requests[28]).request else { Issue.record("not an approve_answer"); return }
        #expect(answer == ApprovalAnswer(id: 4, answer: "minutes", minutes: 5))
        guard case .approveAnswer(let sent) = try decode(#"{"id":1,"op":"approve_answer","request":7,"answer":"once"}"#).request else { Issue.record("not decoded"); return }
        #expect(sent.id == 7)
    }

    @Test func urlMeansWhatItsProviderSaysAndEachProviderChecksItsOwnFields() throws {
        guard case .login(let oauth2) = try decode(#"{"op":"login","provider":"oauth2","token_endpoint":"https://t","url":"https://r","username":"u","password":"p","service":"s"}"#).request,
              case .login(let supabase) = try decode(#"{"op":"login","provider":"supabase","url":"https://p","api_key":"k","email":"e@x.io","password":"p"}"#).request,
              case .login(let firebase) = try decode(#"{"op":"login","provider":"firebase","url":"http://127.0.0.1:1","api_key":"k","email":"e@x.io","password":"p"}"#).request
        else { Issue.record("not logins"); return }
        #expect(oauth2.provider == .oauth2(OAuth2Settings(tokenEndpoint: "https://t", revocationEndpoint: "https://r")))
        #expect(supabase.provider == .supabase(SupabaseSettings(projectURL: "https://p", apiKey: "k")) && supabase.user == "e@x.io")
        #expect(firebase.provider == .firebase(FirebaseSettings(apiKey: "k", emulatorURL: "http://127.0.0.1:1")))
        #expect { try decode(#"{"op":"login","provider":"supabase","api_key":"k","email":"e","password":"p"}"#) } throws: { "\($0)" == "missing field 'url'" }
        #expect { try decode(#"{"op":"login","provider":"oauth2","token_endpoint":"https://t","password":"p"}"#) } throws: { "\($0)" == "missing field 'username'" }
        #expect { try decode(#"{"op":"login","provider":"ldap","password":"p"}"#) } throws: { "\($0)".contains("provider 'ldap' is not supported") }
        #expect { try decode(#"{"op":"reset_password","provider":"oauth2","email":"e"}"#) } throws: { ($0 as? VaultError)?.code == .badRequest }
    }

    @Test func badFieldsAreNamedAndUnknownOpsListTheKnownOnes() {
        #expect { try decode(#"{"op":"add","service":"s","account":"a"}"#) } throws: { "\($0)" == "missing field 'secret' (or 'secret_b64')" }
        #expect { try decode(#"{"op":"add","service":"s","account":"a","secret":"x","secret_b64":"eA=="}"#) } throws: { "\($0)".contains("not both") }
        #expect { try decode(#"{"op":"get","account":"a"}"#) } throws: { "\($0)" == "missing field 'service'" }
        #expect { try decode(#"{"op":"migrate","to":"memory"}"#) } throws: { "\($0)".contains("use file or secret-service") }
        #expect { try decode(#"{"op":"change_passphrase","passphrase":"a"}"#) } throws: { "\($0)".contains("new_passphrase") }
        #expect { try decode(#"{"op":"frobnicate\n"}"#) } throws: { "\($0)".contains("unknown op 'frobnicate '; known ops: status, get,") }
        // Unknown fields are ignored.
        #expect((try? decode(#"{"op":"status","extra":[1,2]}"#)) != nil)
    }

    @Test func aResponseIsAResultOrAnErrorAndNeitherHalfIsOptional() throws {
        #expect(throws: VaultError.self) { try MessageCodec.decode(ResponseLine.self, from: Array(#"{"id":1,"ok":true}"#.utf8)) }
        #expect(throws: VaultError.self) { try MessageCodec.decode(ResponseLine.self, from: Array(#"{"id":1,"ok":false,"result":{}}"#.utf8)) }
        let failure = try MessageCodec.decode(ResponseLine.self, from: Array(#"{"error":{"code":"locked","message":"m"},"id":"x","ok":false}"#.utf8))
        guard case .failure(let error) = failure.response else { Issue.record("not a failure"); return }
        #expect(error == ErrorBody(.locked, "m") && failure.id == .string("x"))
    }

    @Test func timestampsParseBackToTheirMilliseconds() {
        for milliseconds: Int64 in [0, 1_796_040_245_123, 951_782_400_999] {
            #expect(Timestamp.milliseconds(rfc3339: Timestamp.rfc3339(milliseconds: milliseconds)) == milliseconds)
        }
        #expect(Timestamp.milliseconds(rfc3339: "2026-11-30T12:04:05Z") == 1_796_040_245_000)
        for bad in ["", "2026-11-30", "2026-11-30T12:04:05.Z", "2026-13-30T12:04:05Z", "2026-11-30T12:04:05.1234Z", "2026-11-30 12:04:05Z"] {
            #expect(Timestamp.milliseconds(rfc3339: bad) == nil, "\(bad)")
        }
    }

    /// The attributes of a foreign query: null is "has no such attribute", not "any"; only the
    /// schema's key attributes, checked like the items' own.
    @Test func foreignAttributesKeepNullsAndAreChecked() throws {
        guard case .foreignList(let query) = try decode(#"{"op":"foreign_list","schema":"git","attributes":{"server":"h","object":null}}"#).request else {
            Issue.record("not a foreign_list"); return
        }
        #expect(query.attributes.count == 2 && query.attributes["object"] == .some(nil))
        #expect { try decode(#"{"op":"foreign_set","schema":"git","attributes":{"server":"h"},"label":"l"}"#) } throws: { "\($0)".contains("missing field 'secret'") }
        #expect { try decode(#"{"op":"foreign_get","schema":"git","attributes":{"server":5}}"#) } throws: { ($0 as? VaultError)?.code == .badRequest }

        let git = ForeignSchema.git
        func refusal(_ attributes: [String: String?], writing: Bool = false) -> String? {
            do { try git.validate(attributes, writing: writing); return nil } catch { return "\(error)" }
        }
        #expect(refusal(["server": "h", "port": "8443", "object": nil]) == nil)
        #expect(refusal(["service": "h"])?.contains("not an attribute of git items") == true)
        #expect(refusal(["server": nil])?.contains("at least one attribute") == true)
        #expect(refusal(["server": "h\nx"])?.contains("control character") == true)
        #expect(refusal(["server": String(repeating: "h", count: 1025)])?.contains("over 1024 bytes") == true)
        for port in ["0", "65536", "08443", "84a", "", "-1"] { #expect(refusal(["server": "h", "port": port])?.contains("not a port number") == true, "\(port)") }
        #expect(refusal(["server": "h", "protocol": "https"], writing: true)?.contains("'user'") == true)
        #expect(refusal(["server": "h", "protocol": "https", "user": "u"], writing: true) == nil)
        #expect(ForeignSchema.docker.problem(name: "server", value: "https://r.example\u{9B}") != nil)
        #expect { try ForeignSchema.named("pass") } throws: { "\($0)".contains("known: git, docker") }
    }

    /// docs/protocol.md's table of operations has a row for every op vaultd answers.
    @Test func theProtocolDocumentListsEveryOperation() throws {
        let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let document = try String(contentsOfFile: "/" + root + "/docs/protocol.md", encoding: .utf8)
        for operation in Operation.allCases {
            #expect(document.contains("\n| `\(operation.rawValue)` |"), "docs/protocol.md has no row for '\(operation.rawValue)'")
        }
    }
}
