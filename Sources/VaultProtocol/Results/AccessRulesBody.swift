/// `rules`, `allow`, `disallow`: an item's rules. `confirm`: each access needs an approver's
/// answer unless an allowed program asks.
public struct AccessRulesBody: Codable, Sendable, Equatable {
    public struct Program: Codable, Sendable, Equatable {
        public var path: String
        public var sha256: String
        public var added: String
        /// For a script: the interpreter it must run under, pinned the same way.
        public var interpreter: Interpreter?

        public struct Interpreter: Codable, Sendable, Equatable {
            public var path: String
            public var sha256: String

            public init(path: String, sha256: String) {
                self.path = path
                self.sha256 = sha256
            }
        }

        public init(path: String, sha256: String, added: String, interpreter: Interpreter? = nil) {
            self.path = path
            self.sha256 = sha256
            self.added = added
            self.interpreter = interpreter
        }
    }

    public var service: String
    public var account: String
    public var confirm: Bool
    public var allow: [Program]

    public init(service: String, account: String, confirm: Bool, allow: [Program]) {
        self.service = service
        self.account = account
        self.confirm = confirm
        self.allow = allow
    }
}
