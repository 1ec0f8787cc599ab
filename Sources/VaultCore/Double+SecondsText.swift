extension Double {
    /// A number of seconds as people read it in a message: "5", "2.5" (never "5.0").
    public var secondsText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
