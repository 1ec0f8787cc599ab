/// A Supabase project: its URL and its public API key (anon or publishable).
public struct SupabaseSettings: Sendable, Equatable {
    public var projectURL: String
    public var apiKey: String

    public init(projectURL: String, apiKey: String) {
        self.projectURL = projectURL
        self.apiKey = apiKey
    }
}
