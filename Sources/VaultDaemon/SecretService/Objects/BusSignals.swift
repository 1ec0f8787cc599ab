/// Where the objects' signals go: the provider's bus connection, or a test's recorder.
protocol BusSignals: Sendable {
    /// Emits the signal `member` of `interface` from `path` to `destination`, or to everyone.
    func emit(from path: String, interface: String, _ member: String, _ arguments: BusValue, to destination: String?)
}

extension BusSignals {
    func emit(from path: String, interface: String, _ member: String, _ arguments: BusValue) {
        emit(from: path, interface: interface, member, arguments, to: nil)
    }
}
