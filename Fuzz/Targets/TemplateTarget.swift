import VaultCLI
import VaultClient
import VaultCore

/// `vaultctl inject`'s templates: a template renders back to itself when each placeholder is
/// written as its reference, and text without a placeholder renders unchanged.
enum TemplateTarget: FuzzTarget {
    static let name = "template"
    static let maxLength = 4096

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let template = try? Template(input, name: "t") else { return }
        var placeholders: [SecretReference: SecretBytes] = [:]
        for reference in template.references { placeholders[reference] = SecretBytes(utf8: "{{ " + reference.text + " }}") }
        let rendered = template.render(placeholders)
        if template.references.isEmpty {
            try FuzzFinding.check(rendered == input, "a template without placeholders does not render to itself")
            return
        }
        guard let again = try? Template(rendered, name: "t") else { throw FuzzFinding("a rendered template with its placeholders does not parse") }
        try FuzzFinding.check(again.references.map(\.text) == template.references.map(\.text), "a re-rendered template has other references")
        try FuzzFinding.check(again.render(placeholders) == rendered, "a template does not render to itself twice")
    }
}
