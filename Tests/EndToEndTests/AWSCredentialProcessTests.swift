import Foundation
import Testing
import VaultCore

/// `vaultctl aws set` / `aws credential-process` with the real botocore reading a profile whose
/// `credential_process` is vaultctl.
@Suite struct AWSCredentialProcessTests {
    static let secretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
    static let sessionToken = "FwoGZXIvYXdzEXAMPLE+session/token=="

    /// botocore's credentials for `profile`, through a config file naming vaultctl: prints the
    /// access key id and whether secret and token equal what stdin holds, or the exception.
    static let botocore = """
        import json, sys, botocore.session
        expected = json.load(sys.stdin)
        try:
            frozen = botocore.session.Session(profile=sys.argv[1]).get_credentials().get_frozen_credentials()
        except Exception as error:
            print(json.dumps({"error": type(error).__name__, "message": str(error)}))
        else:
            print(json.dumps({"access_key": frozen.access_key, "secret_matches": frozen.secret_key == expected["SecretAccessKey"],
                              "token_matches": frozen.token == expected.get("SessionToken")}))
        """

    static func credentials(expiration: String?) -> String {
        #"{"AccessKeyId":"ASIAEXAMPLE123456789","SecretAccessKey":"\#(secretKey)","SessionToken":"\#(sessionToken)""#
            + (expiration.map { #","Expiration":"\#($0)""# } ?? "") + "}"
    }

    func botocore(_ vault: VaultHarness, profile: String, expected: String) throws -> [String: Any] {
        let config = vault.root + "/aws-config"
        FileManager.default.createFile(atPath: config, contents: Data("""
            [profile \(profile)]
            credential_process = \(VaultHarness.vaultctl) aws credential-process \(profile)

            """.utf8))
        let environment = vault.environment.filter { !$0.key.hasPrefix("AWS_") }.merging([
            "AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": vault.root + "/no-credentials", "AWS_EC2_METADATA_DISABLED": "true",
        ]) { $1 }
        let result = try ProcessRunner.run([PythonFixture.packageRoot + "/.venv/bin/python", "-c", Self.botocore, profile],
                                           environment: environment, input: Array(expected.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any] ?? [:]
    }

    @Test func botocoreGetsTheCredentialsFromVaultAndRefusesExpiredOnes() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let valid = Self.credentials(expiration: "2099-01-01T00:00:00+00:00")
        let set = try vault.ctl(["aws", "set", "dev"], input: Array(valid.utf8))
        #expect(set.status == 0 && set.text.isEmpty, "\(set.stderr)")
        let listed = try vault.ctl("list").text
        #expect(listed.hasPrefix("aws\tdev\taws (dev)\taws\t"), "kind aws: \(listed)")

        // The item's kind survives the file store: a fresh vaultd reads it back.
        vault.stopDaemons()
        try vault.startDaemon()
        #expect(try vault.ctl("list", "--json").text.contains(#""kind":"aws""#))
        let printed = try JSONSerialization.jsonObject(with: Data(try vault.ctl("aws", "credential-process", "dev").stdout)) as? [String: Any]
        #expect(printed?["Version"] as? Int == 1 && printed?["Expiration"] as? String == "2099-01-01T00:00:00Z" && printed?["SecretAccessKey"] as? String == Self.secretKey)

        let loaded = try botocore(vault, profile: "dev", expected: valid)
        #expect(loaded["access_key"] as? String == "ASIAEXAMPLE123456789", "\(loaded)")
        #expect(loaded["secret_matches"] as? Bool == true && loaded["token_matches"] as? Bool == true, "\(loaded)")

        // Credentials that expire two seconds from now: accepted, then refused once expired.
        let soon = Date().addingTimeInterval(2)
        let soonText = String(Timestamp.rfc3339(seconds: soon.timeIntervalSince1970.rounded(.up)).prefix(19)) + "Z"
        #expect(try vault.ctl(["aws", "set", "dev"], input: Array(Self.credentials(expiration: soonText).utf8)).status == 0)
        while Date() <= soon.addingTimeInterval(1) { usleep(100_000) }
        let expired = try vault.ctl("aws", "credential-process", "dev")
        #expect(expired.status == 4 && expired.text.isEmpty && expired.stderr.contains("expired at \(soonText)"), "\(expired.stderr)")
        let refused = try botocore(vault, profile: "dev", expected: valid)
        #expect(refused["error"] as? String == "CredentialRetrievalError", "\(refused)")
        let message = refused["message"] as? String ?? ""
        #expect(message.contains("expired") && message.contains("vaultctl aws set dev"), "\(message)")
        #expect(!message.contains(Self.secretKey) && !message.contains(Self.sessionToken), "no secret in the SDK's error")

        let missing = try vault.ctl("aws", "credential-process", "nobody")
        #expect(missing.status == 3 && missing.stderr.contains("vaultctl aws set nobody"), "\(missing.stderr)")
        // A plain secret stored by hand under the same name is not taken for credentials.
        try vault.ctl(["set", "aws", "plain"], input: Array(valid.utf8))
        let plain = try vault.ctl("aws", "credential-process", "plain")
        #expect(plain.status != 0 && plain.text.isEmpty && !plain.stderr.contains(Self.secretKey), "\(plain.stderr)")
    }

    @Test func awsSetRefusesHostileInputWithoutEchoingIt() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let canary = "CANARYsecret42"
        let cases: [(String, [UInt8])] = [
            ("not JSON", Array("AccessKeyId=\(canary)".utf8)),
            ("broken JSON", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"\#(canary)""#.utf8)),
            ("an array", Array(#"["\#(canary)"]"#.utf8)),
            ("empty", []),
            ("missing secret", Array(#"{"AccessKeyId":"\#(canary)"}"#.utf8)),
            ("number", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":12345678901234}"#.utf8)),
            ("empty key id", Array(#"{"AccessKeyId":"","SecretAccessKey":"\#(canary)"}"#.utf8)),
            ("space in key id", Array(#"{"AccessKeyId":"AKIA \#(canary)","SecretAccessKey":"x"}"#.utf8)),
            ("escape in secret", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"\#(canary)\u001b[2J"}"#.utf8)),
            ("newline in token", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"x","SessionToken":"\#(canary)\n"}"#.utf8)),
            ("long key id", Array(#"{"AccessKeyId":"\#(String(repeating: "A", count: 129))","SecretAccessKey":"\#(canary)"}"#.utf8)),
            ("unknown field", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"x","\#(canary) \u0007":"y"}"#.utf8)),
            ("bad expiration", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"\#(canary)","Expiration":"tomorrow"}"#.utf8)),
            ("expired", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"\#(canary)","Expiration":"2001-01-01T00:00:00Z"}"#.utf8)),
            ("version 2", Array(#"{"Version":2,"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"\#(canary)"}"#.utf8)),
            ("invalid UTF-8", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":""#.utf8) + [0xC3, 0x28] + Array(#"\#(canary)"}"#.utf8)),
            ("over 64 KiB", Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"\#(canary)\#(String(repeating: "x", count: 70_000))"}"#.utf8)),
        ]
        for (name, input) in cases {
            let result = try vault.ctl(["aws", "set", "dev"], input: input)
            #expect(result.status == 2, "\(name): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("vaultctl: ") && result.text.isEmpty, "\(name): \(result.stderr)")
            #expect(!result.stderr.contains(canary) && !result.stderr.contains("\u{1B}"), "\(name) echoed: \(result.stderr)")
        }
        #expect(try vault.ctl("get", "aws", "dev").status == 3, "nothing was stored")
        #expect(try vault.ctl(["aws", "set", "../x\u{1}"], input: Array(Self.credentials(expiration: nil).utf8)).status == 2, "a control character in PROFILE")

        // On the wire, add and set take only the kinds secret and aws.
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        for kind in ["session", "nonsense", "AWS"] {
            try connection.send(#"{"id":1,"op":"set","service":"s","account":"a","secret":"x","kind":"\#(kind)"}"# + "\n")
            let answer = try connection.receive()
            #expect((answer?["error"] as? [String: Any])?["code"] as? String == "bad_request", "\(kind): \(String(describing: answer))")
        }
        try connection.send(#"{"id":2,"op":"set","service":"s","account":"a","secret":"x","kind":7}"# + "\n")
        #expect((try connection.receive()?["error"] as? [String: Any])?["code"] as? String == "bad_request")
        #expect(try vault.ctl("get", "s", "a").status == 3)
    }
}
