import VaultClient
import VaultCore

/// aws set, aws credential-process: AWS credentials kept as item `aws` PROFILE, kind `aws`.
extension Commands {
    /// The service that holds every profile's credentials; the account is the profile's name.
    static let awsService = "aws"

    /// `aws set PROFILE`: credential_process JSON on stdin, checked, stored normalized.
    func awsSet(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "PROFILE")
        let profile = arguments.positionals[0]
        _ = try ItemKey(service: Self.awsService, account: profile)
        guard !SecretInput.stdinIsTerminal else {
            throw ParsedArguments.UsageError(message: "aws set reads the credentials as JSON from stdin: pipe them in, for example from a file or 'jq .Credentials'")
        }
        let input = try SecretInput.readStandardInput(limit: ItemLimits.maxSecretBytes, raw: true)
        let credentials = try AWSCredentials(json: input)
        if credentials.isExpired() {
            throw VaultError.invalidInput("AWS credentials refused: they expired at \(credentials.expirationText ?? ""); get fresh ones")
        }
        guard var bytes = VaultJSON.line(credentials.stored) else { throw VaultError.internal("could not encode the AWS credentials") }
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        let secret = bytes.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
        try vault.set(service: Self.awsService, account: profile, secret: secret, kind: .aws)
    }

    /// `aws credential-process PROFILE`: prints `{"Version":1,...}`; missing (exit 3) or expired
    /// (exit 4) credentials get a message on stderr without any of their values.
    func awsCredentialProcess(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "PROFILE")
        let profile = arguments.positionals[0]
        let item: VaultItem
        do {
            item = try vault.get(service: Self.awsService, account: profile)
        } catch {
            guard error.code == .notFound else { throw error }
            throw VaultClientError(code: .notFound, message: "no AWS credentials for profile '\(profile)' in vault: store them with 'vaultctl aws set \(profile)'")
        }
        guard item.metadata.kind == .aws else {
            throw VaultError.invalidInput(
                "item '\(Self.awsService)' '\(profile)' is a \(item.metadata.kind.rawValue), not AWS credentials: store them with 'vaultctl aws set \(profile)'")
        }
        let credentials: AWSCredentials
        do {
            credentials = try AWSCredentials(json: item.secret)
        } catch let error as VaultError {
            throw VaultError.invalidInput("the stored credentials of profile '\(profile)' are unusable: \(error.description)")
        }
        if credentials.isExpired() {
            throw VaultError.signInRequired(
                "the AWS credentials of profile '\(profile)' expired at \(credentials.expirationText ?? ""): store fresh ones with 'vaultctl aws set \(profile)'")
        }
        Output.json(credentials.processOutput)
    }
}
