internal import VaultProtocol

// Access rules, audit records and approval requests: wire bodies to models and back (the JSON
// `vaultctl rules --json` and `vaultctl audit --json` print is the wire's).

extension ItemRules: Encodable {
    init(wire body: AccessRulesBody) {
        self.init(service: body.service, account: body.account, confirm: body.confirm,
                  allowed: body.allow.map {
                      AllowedProgram(path: $0.path, sha256: $0.sha256, added: $0.added, interpreter: $0.interpreter?.path, interpreterSHA256: $0.interpreter?.sha256)
                  })
    }

    public func encode(to encoder: Encoder) throws {
        try AccessRulesBody(service: service, account: account, confirm: confirm,
                            allow: allowed.map { program in
                                .init(path: program.path, sha256: program.sha256, added: program.added,
                                      interpreter: program.interpreter.map { .init(path: $0, sha256: program.interpreterSHA256 ?? "") })
                            }).encode(to: encoder)
    }
}

extension AuditRecord: Encodable {
    init(wire body: AuditEntryBody) {
        self.init(time: body.time, op: body.op, service: body.service, account: body.account, result: body.result, pid: body.pid,
                  exe: body.exe, script: body.script, unit: body.unit, grant: body.grant)
    }

    public func encode(to encoder: Encoder) throws {
        try AuditEntryBody(time: time, op: op, service: service, account: account, result: result, pid: pid, exe: exe,
                           script: script, unit: unit, grant: grant).encode(to: encoder)
    }
}

extension ApprovalRequest {
    init(wire body: ApprovalBody) {
        self.init(id: body.id, op: body.op, service: body.service, account: body.account, pid: body.pid, exe: body.exe,
                  script: body.script, cwd: body.cwd, unit: body.unit, expiresIn: body.expiresIn,
                  ancestry: (body.ancestry ?? []).prefix(ApprovalBody.maxAncestry).map { Ancestor(pid: $0.pid, exe: $0.exe, cwd: $0.cwd) })
    }
}
