import VaultCore
internal import VaultProtocol

/// Spaces: items shared by this user's devices through a remote engine, end to end encrypted.
extension VaultConnection {
    public func createSpace(_ name: String, remote: String, path: String? = nil, deviceName: String? = nil) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceCreate(SpaceRequest(name: name, remote: remote, path: path, device: deviceName)))
    }

    /// Lists this device in the space as waiting; the answer's `fingerprint` is to compare on a member.
    public func joinSpace(_ name: String, remote: String, path: String? = nil, deviceName: String? = nil) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceJoin(SpaceRequest(name: name, remote: remote, path: path, device: deviceName)))
    }

    public func admitToSpace(_ name: String, words: [String]) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceAdmit(SpaceRequest(name: name, words: words)))
    }

    public func addToSpace(_ name: String, service: String, account: String) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceAdd(SpaceRequest(name: name, service: service, account: account)))
    }

    public func removeFromSpace(_ name: String, service: String, account: String) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceRemove(SpaceRequest(name: name, service: service, account: account)))
    }

    public func spaceStatus(_ name: String) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceStatus(SpaceRequest(name: name)))
    }

    public func removeDeviceFromSpace(_ name: String, device: String) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceRemoveDevice(SpaceRequest(name: name, device: device)))
    }

    public func syncSpace(_ name: String) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceSync(SpaceRequest(name: name)))
    }

    /// `keep`: `item` or `copy`.
    public func resolveSpaceConflict(_ name: String, service: String, account: String, keep: String) throws(VaultClientError) -> SpaceInfo {
        try space(.spaceResolve(SpaceRequest(name: name, service: service, account: account, keep: keep)))
    }

    private func space(_ request: Request) throws(VaultClientError) -> SpaceInfo {
        let result = try perform(request)
        guard let body = result.space else { throw .malformedAnswer("a required part of the answer is missing") }
        return SpaceInfo(wire: body, message: result.message)
    }
}

extension SpaceInfo: Encodable {
    init(wire body: SpaceBody, message: String?) {
        self.init(name: body.name, remote: body.remote, path: body.path, device: body.device, deviceName: body.deviceName, admitted: body.admitted,
                  generation: body.generation, fingerprint: body.fingerprint ?? [],
                  devices: (body.devices ?? []).map { Device(id: $0.id, name: $0.name, state: $0.state, isCurrent: $0.current ?? false) },
                  items: body.items, pending: body.pending ?? 0, heldBack: body.heldBack ?? 0, lastPull: body.lastPull, lastPush: body.lastPush,
                  conflicts: (body.conflicts ?? []).map { Conflict(service: $0.service, account: $0.account, copy: $0.copy, device: $0.device, at: $0.at) },
                  problems: body.problems ?? [], message: message)
    }

    public func encode(to encoder: Encoder) throws { try wire.encode(to: encoder) }

    var wire: SpaceBody {
        var body = SpaceBody(name: name, remote: remote, path: path, device: device, deviceName: deviceName, admitted: admitted,
                             generation: generation, items: items, pending: pending)
        body.fingerprint = fingerprint.isEmpty ? nil : fingerprint
        body.devices = devices.map { SpaceBody.Device(id: $0.id, name: $0.name, state: $0.state, current: $0.isCurrent ? true : nil) }
        body.heldBack = heldBack > 0 ? heldBack : nil
        body.lastPull = lastPull
        body.lastPush = lastPush
        body.conflicts = conflicts.map { SpaceBody.Conflict(service: $0.service, account: $0.account, copy: $0.copy, device: $0.device, at: $0.at) }
        body.problems = problems
        return body
    }
}
