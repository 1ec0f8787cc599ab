#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol

/// `space_*`: spaces shared with this user's other devices through a remote engine
/// (`SpaceAgent`). Every answer carries how the space stands (`space`).
extension RequestDispatcher {
    func space(_ operation: Operation, _ request: SpaceRequest) throws -> ResultBody {
        let name = request.name
        var result = ResultBody()
        switch operation {
        case .spaceCreate:
            let state = try spaces.create(name, remote: try Self.required(request.remote, "remote"), path: request.path, deviceName: Self.deviceName(request.device))
            result.space = spaces.body(state, devices: false)
        case .spaceJoin:
            let (state, _) = try spaces.join(name, remote: try Self.required(request.remote, "remote"), path: request.path, deviceName: Self.deviceName(request.device))
            result.space = spaces.body(state, devices: false)
        case .spaceAdmit:
            let (device, handedOver) = try spaces.admit(name, words: request.words ?? [])
            result.message = "admitted device '\(device.name)' to space '\(name)'; \(handedOver)"
            result.space = spaces.body(try spaces.state(name), devices: true)
        case .spaceAdd:
            result.space = spaces.body(try spaces.add(name, service: try Self.required(request.service, "service"), account: try Self.required(request.account, "account")),
                                       devices: false, counts: false)
        case .spaceRemove:
            result.space = spaces.body(try spaces.remove(name, service: try Self.required(request.service, "service"), account: try Self.required(request.account, "account")), devices: false)
        case .spaceResolve:
            result.space = spaces.body(try spaces.resolve(name, service: try Self.required(request.service, "service"), account: try Self.required(request.account, "account"),
                                                          keep: try Self.required(request.keep, "keep")), devices: false)
        case .spaceRemoveDevice:
            let removed = try spaces.removeDevice(name, device: try Self.required(request.device, "device"))
            result.message = "removed device '\(removed.name)' from space '\(name)'; the space key was rotated"
            result.space = spaces.body(try spaces.state(name), devices: true)
        case .spaceSync:
            let report = try spaces.sync(name)
            result.message = "pulled \(report.pulled), pushed \(report.pushed), \(report.conflicts) conflict\(report.conflicts == 1 ? "" : "s")"
                + (report.refused.isEmpty ? "" : ", \(report.refused.count) entr\(report.refused.count == 1 ? "y" : "ies") refused")
            result.space = spaces.body(try spaces.state(name), devices: false)
        default:
            result.space = spaces.body(try spaces.stateCheckingAdmission(name), devices: true)
        }
        return result
    }

    static func required(_ value: String?, _ field: String) throws -> String {
        guard let value, !value.isEmpty else { throw VaultError.invalidInput("this space operation needs '\(field)'") }
        return value
    }

    /// The device's name: given, else this machine's host name.
    static func deviceName(_ given: String?) -> String {
        if let given, !given.isEmpty { return String(given.prefix(256)).replacingControlCharacters() }
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "device" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
