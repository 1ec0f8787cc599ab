/// The union of every operation's result; each operation fills in its own fields. The fields of
/// the rarer results are `Boxed`, so a copy of a `get`'s result does not copy them all.
public struct ResultBody: Codable, Sendable {
    // get / add / set: the item.
    public var item: ItemBody?
    // list: the items, and those no key can address (absent when none)
    public var items: [ItemBody]?
    public var unaddressable: [UnaddressableBody]?
    // a paged list: the token of the next page (absent on the last page)
    public var next: String?
    // status
    @Boxed public var status: StatusBody?
    // migrate
    @Boxed public var migration: MigrationBody?
    // doctor
    @Boxed public var doctor: DoctorBody?
    // token
    @Boxed public var token: TokenBody?
    // signup, reset_password, logout: what happened, for people
    public var message: String?
    // device_start: the codes to show; device_poll: "pending" or "slow_down" until approved
    @Boxed public var device: DeviceBody?
    // foreign_list: the matching items; foreign_set: those written; foreign_delete: those deleted
    public var foreign: [ForeignItemBody]?
    // rules, allow, disallow: the item's rules
    @Boxed public var rules: AccessRulesBody?
    // audit: the records, oldest first
    public var audit: [AuditEntryBody]?
    // audit: what checking the log's chains found, each a sentence (absent: they hold)
    public var problems: [String]?
    // approve_next: the request to answer (absent when none came within the wait)
    @Boxed public var approval: ApprovalBody?
    // resolve_credential: what was found (the item or token itself in `item` or `token`)
    @Boxed public var resolution: ResolutionBody?
    // remote_add, remote_list, remote_login: the remotes
    public var remotes: [RemoteBody]?
    // kv_get, kv_put: the version read or written (kv_get's value is in `item`)
    @Boxed public var kv: KVBody?
    // kv_history: the versions, oldest first
    public var versions: [KVVersionBody]?
    // kv_list: the names under a folder, folders ending in '/'
    public var keys: [String]?
    // space_*: how the space stands on this device
    @Boxed public var space: SpaceBody?

    /// Whether nothing but `item`, `items`, `next` and `resolution` is present (the fast encoder's case).
    var holdsOnlyItems: Bool {
        unaddressable == nil && !$status.isPresent && !$migration.isPresent && !$doctor.isPresent && !$token.isPresent && message == nil
            && !$device.isPresent && foreign == nil && !$rules.isPresent && audit == nil && problems == nil && !$approval.isPresent
            && remotes == nil && !$kv.isPresent && versions == nil && keys == nil && !$space.isPresent
    }

    public init(
        item: ItemBody? = nil, items: [ItemBody]? = nil, status: StatusBody? = nil, migration: MigrationBody? = nil,
        doctor: DoctorBody? = nil, token: TokenBody? = nil, message: String? = nil, device: DeviceBody? = nil,
        foreign: [ForeignItemBody]? = nil
    ) {
        self.foreign = foreign
        self.device = device
        self.token = token
        self.message = message
        self.item = item
        self.items = items
        self.unaddressable = nil
        self.next = nil
        self.status = status
        self.migration = migration
        self.doctor = doctor
    }
}
