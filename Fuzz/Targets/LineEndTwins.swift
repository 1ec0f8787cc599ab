/// A text's twins with LF and with CRLF line ends; nil when they are not well defined (a CR
/// right before a CRLF would itself end a line once the CRLF is an LF).
package func lineEndTwins(_ bytes: [UInt8]) -> (lf: [UInt8], crlf: [UInt8])? {
    var lf: [UInt8] = []
    lf.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
        lf.append(bytes[index])
        index += 1
    }
    for index in lf.indices.dropLast() where lf[index] == 0x0D && lf[index + 1] == 0x0A { return nil }
    if lf.last == 0x0D { return nil }
    var crlf: [UInt8] = []
    for byte in lf {
        if byte == 0x0A { crlf.append(0x0D) }
        crlf.append(byte)
    }
    return (lf, crlf)
}
