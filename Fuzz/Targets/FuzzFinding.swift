/// An oracle that did not hold, with what was seen (never secret: fuzz inputs are made up).
package struct FuzzFinding: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) { self.description = description }

    /// Throws unless `condition` holds.
    package static func check(_ condition: Bool, _ what: @autoclosure () -> String) throws(FuzzFinding) {
        if !condition { throw FuzzFinding(what()) }
    }
}
