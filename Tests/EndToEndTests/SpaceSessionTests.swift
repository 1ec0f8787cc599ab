import Foundation
import Testing
import VaultCore

/// A signed-in session shared in a space by three machines, against the real django-oauth-toolkit
/// (3-second access tokens, refresh-token rotation on, so a refresh token spent twice is
/// `invalid_grant` and the session dies): all three ask for a token at once after it expired;
/// one refresh reaches the provider (the lease), every machine is served the same new token,
/// and the session stays alive.
@Suite(.serialized) struct SpaceSessionTests {
    let spaces = SpaceSyncTests()

    @Test func threeMachinesAskingAtOnceSpendOneRefresh() throws {
        let (bao, laptop, server) = try spaces.enrolled()
        let third = try spaces.machine(bao)
        try spaces.join(third, as: "third", admittedBy: laptop)
        let machines = [laptop, server, third]
        let oauth = try OAuthServer(laptop)
        #expect(try oauth.login(laptop).status == 0)
        let shared = try laptop.ctl("space", "add", "home", "example", "alice")
        #expect(shared.status == 0, "\(shared.stderr)")
        for machine in machines { try spaces.sync(machine) }
        for machine in machines.dropFirst() {
            #expect(try machine.ctl("list").text.contains("example"), "the session reached every machine")
        }

        for machine in machines { machine.advanceSessionClock(by: 3.2) }  // the 3-second access token expires
        let before = try oauth.tokenRequests()
        let callers = try machines.map { try $0.startCtl(["token", "example", "--min-ttl", "1"]) }
        var tokens = Set<String>()
        var statuses: [Int32] = []
        for (process, output) in callers {
            tokens.insert(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            process.waitUntilExit()
            statuses.append(process.terminationStatus)
        }
        #expect(statuses == [0, 0, 0], "every machine is served")
        #expect(try oauth.tokenRequests() == before + 1, "one refresh reaches the provider")
        #expect(tokens.count == 1 && tokens.first?.isEmpty == false, "all three have the same token")

        // Alive: whichever machine refreshes next holds the refresh token the provider issued last.
        for machine in machines { machine.advanceSessionClock(by: 3.2) }
        let again = try third.ctl("token", "example", "--min-ttl", "1")
        #expect(again.status == 0 && again.text != tokens.first, "\(again.stderr)")
        #expect(try oauth.tokenRequests() == before + 2)
    }
}
