/// A Firebase project's Web API key, and an emulator's base URL when not production.
public struct FirebaseSettings: Sendable, Equatable {
    public var apiKey: String
    public var emulatorURL: String?

    public init(apiKey: String, emulatorURL: String? = nil) {
        self.apiKey = apiKey
        self.emulatorURL = emulatorURL
    }
}
