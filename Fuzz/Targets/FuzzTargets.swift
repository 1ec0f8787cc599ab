/// A target as the runner and the replay tests use it.
package struct FuzzTargetEntry: Sendable {
    package let name: String
    package let maxLength: Int
    package let run: @Sendable ([UInt8]) throws(FuzzFinding) -> Void

    init<Target: FuzzTarget>(_ target: Target.Type) {
        name = Target.name
        maxLength = Target.maxLength
        run = { input throws(FuzzFinding) in try Target.run(input) }
    }
}

/// Every target, by name.
package enum FuzzTargets {
    package static let all: [FuzzTargetEntry] = [
        FuzzTargetEntry(RequestLineTarget.self),
        FuzzTargetEntry(ResponseLineTarget.self),
        FuzzTargetEntry(ConfigFileTarget.self),
        FuzzTargetEntry(EnvFileTarget.self),
        FuzzTargetEntry(TemplateTarget.self),
        FuzzTargetEntry(ReferenceTarget.self),
        FuzzTargetEntry(GitInputTarget.self),
        FuzzTargetEntry(GitConfigTarget.self),
        FuzzTargetEntry(DockerInputTarget.self),
        FuzzTargetEntry(VaultFileTarget.self),
        FuzzTargetEntry(VaultRecordTarget.self),
        FuzzTargetEntry(AuditLogTarget.self),
        FuzzTargetEntry(ProviderAnswerTarget.self),
        FuzzTargetEntry(SessionImportTarget.self),
        FuzzTargetEntry(DBusArgumentsTarget.self),
        FuzzTargetEntry(EngineAnswerTarget.self),
        FuzzTargetEntry(SpaceEntryTarget.self),
    ]

    package static func named(_ name: String) -> FuzzTargetEntry? {
        all.first { $0.name == name }
    }
}
