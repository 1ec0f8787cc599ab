/// A cache of values derived from the store's items, which `ActiveStore` empties after each of
/// its exclusive sections (see `StoreCache`).
protocol StoreCacheClearing: AnyObject, Sendable {
    func clear()
}
