/// The states a power loss may leave a directory in after the first `cut` events of a
/// recording, in a model of what a file system promises (POSIX, and what ext4 and XFS do): a
/// file's writes and size are durable once it is synced, the directory's names once it is.
/// Of what was not yet durable, any part may have reached the disk, in any order; the states
/// taken:
/// - every subset of the changes not yet durable (up to `maxSubsetCount` of them; beyond, every
///   prefix in the order they were made, and all of them but one);
/// - all of them with the last write torn (its first sectors only), or with its size but not
///   its data (zeros: the size reached the disk, the data blocks did not).
enum CrashStates {
    static let sector = 512
    /// Up to this many changes not yet durable, every subset of them is taken (2^n states).
    static let maxSubsetCount = 8

    static func all(_ recorder: StorageRecorder) -> [CrashState] {
        let events = recorder.events
        var states: [CrashState] = []
        var acknowledged: Int?
        for cut in 0...events.count {
            if cut > 0, case .acknowledged(let operation) = events[cut - 1] { acknowledged = operation }
            let pending = self.pending(events, cut: cut)
            var choices: [(String, Set<Int>, Tear?)] = []
            if pending.count <= maxSubsetCount {
                for mask in 0..<(1 << pending.count) {
                    let applied = pending.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
                    choices.append(("changes \(applied) of \(pending)", Set(applied), nil))
                }
            } else {
                for count in 0...pending.count { choices.append(("prefix \(count)/\(pending.count)", Set(pending.prefix(count)), nil)) }
                for (index, dropped) in pending.enumerated() { choices.append(("all but \(index)", Set(pending).subtracting([dropped]), nil)) }
            }
            if let last = pending.last(where: { if case .write = events[$0] { true } else { false } }) {
                choices.append(("last write torn", Set(pending), .torn(last)))
                choices.append(("last write as zeros", Set(pending), .zeros(last)))
            }
            for (variant, applied, tear) in choices {
                let files = apply(recorder, events, cut: cut, pending: Set(pending), applied: applied, tear: tear)
                states.append(CrashState(files: files, cut: cut, acknowledged: acknowledged, variant: variant))
            }
        }
        return states
    }

    enum Tear {
        case torn(Int)
        case zeros(Int)
    }

    /// What reaches the disk of a write torn by a power loss: whole sectors, about half of it.
    static func tornLength(_ count: Int) -> Int {
        count > sector ? max(sector, count / 2 / sector * sector) : count / 2
    }

    /// The indices of the events before `cut` that were not durable at `cut`, in order.
    static func pending(_ events: [StorageRecorder.Event], cut: Int) -> [Int] {
        var lastSync: [UInt64: Int] = [:]
        var lastDirectorySync = -1
        for index in 0..<cut {
            switch events[index] {
            case .sync(let inode): lastSync[inode] = index
            case .syncDirectory: lastDirectorySync = index
            default: break
            }
        }
        return (0..<cut).filter { index in
            switch events[index] {
            case .write(let inode, _, _), .truncate(let inode, _): index > lastSync[inode, default: -1]
            case .name: index > lastDirectorySync
            default: false
            }
        }
    }

    /// The files after applying every durable event before `cut` and the pending ones in `applied`.
    static func apply(_ recorder: StorageRecorder, _ events: [StorageRecorder.Event], cut: Int, pending: Set<Int>, applied: Set<Int>, tear: Tear?) -> [String: [UInt8]] {
        var names = recorder.initialNames
        var contents = recorder.initialContents
        for index in 0..<cut where !pending.contains(index) || applied.contains(index) {
            switch events[index] {
            case .write(let inode, let offset, var bytes):
                switch tear {
                case .torn(index)?: bytes = Array(bytes.prefix(tornLength(bytes.count)))
                case .zeros(index)?: bytes = [UInt8](repeating: 0, count: bytes.count)
                default: break
                }
                var data = contents[inode, default: []]
                if data.count < offset + bytes.count { data += [UInt8](repeating: 0, count: offset + bytes.count - data.count) }
                data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
                contents[inode] = data
            case .truncate(let inode, let length):
                var data = contents[inode, default: []]
                if data.count > length { data.removeLast(data.count - length) } else { data += [UInt8](repeating: 0, count: length - data.count) }
                contents[inode] = data
            case .name(.create(let name, let inode)):
                names[name] = inode
                contents[inode] = []
            case .name(.rename(let from, let to)):
                if let inode = names.removeValue(forKey: from) { names[to] = inode }
            case .name(.link(let from, let to)):
                if let inode = names[from] { names[to] = inode }
            case .name(.unlink(let name)):
                names[name] = nil
            case .sync, .syncDirectory, .acknowledged:
                break
            }
        }
        return names.mapValues { contents[$0] ?? [] }
    }
}
