/// Why a credential helper gives up: a sentence for people (never a secret, never a value read
/// from stdin) and the exit status. Each helper prints it where its protocol wants errors (git:
/// stderr; Docker: stdout).
package struct HelperFailure: Error, Sendable, Equatable {
    let message: String
    let status: Int32

    init(_ message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }
}
