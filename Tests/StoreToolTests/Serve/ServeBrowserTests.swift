import Foundation
import Testing

/// `store-tool serve` in a real headless browser: Chromium, driven over the
/// DevTools protocol by `Browser/drive-serve.py` (Python's standard library
/// only), which reports what the pages showed; this test judges it and
/// reads the store back with `store-tool show`.
///
/// Without Chromium (`apt-get install chromium`; `.ci/run` installs it) the
/// test fails when the environment variable `CI` is set, and is skipped
/// otherwise.
@Suite("store-tool serve: browser")
struct ServeBrowserTests {
    /// Chromium's path: `CHROMIUM`, or else `chromium` on the PATH; nil
    /// when neither is an executable file.
    static let chromium: String? = {
        let environment = ProcessInfo.processInfo.environment
        let folders = (environment["PATH"] ?? "").split(separator: ":")
        let candidates = (environment["CHROMIUM"].map { [$0] } ?? []) + folders.map { "\($0)/chromium" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let isCI = ProcessInfo.processInfo.environment["CI"] != nil

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Browser/drive-serve.py")

    @Test(
        "load, follow the entity link, filter, follow a trip's link, set a value and see it stored, a bad value shows set's error, a wrong token is refused",
        .enabled(if: chromium != nil || isCI, "chromium is not installed (apt-get install chromium)"))
    func browse() async throws {
        let chromium = try #require(Self.chromium, "the browser test needs chromium: apt-get install chromium (.ci/run installs it)")
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let python = try #require(
            ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }, "python3 drives the browser")
        let run = try Fixture.runProcess(URL(filePath: python), [Self.script.path(percentEncoded: false), chromium, serve.url])
        try #require(run.status == 0, "drive-serve.py: \(run.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")

        let load = seen["load"] as? String ?? ""
        #expect(load.contains("Entities") && load.contains("Trip") && load.contains("Traveler"), "\(load)")
        #expect(seen["filterURL"] as? String == "?entity=Trip&where=name contains \"o\"&sort=&limit=50", "\(seen["filterURL"] ?? "")")
        #expect(seen["filtered"] as? [String] == ["Trip:1", "Trip:2"], "Lisbon and Kyoto: \(seen["filtered"] ?? "")")
        #expect(seen["followed"] as? String == "Trip:1")
        #expect(seen["links"] as? [String] == ["Stop:1", "Stop:2"])
        #expect(seen["afterEdit"] as? String == "8" && seen["notice"] as? String == "Saved nights.", "\(seen)")
        let expected = cliError(try fixture.run("set", fixture.path, "Trip:1", "nights=abc"))
        #expect(seen["badValueError"] as? String == expected, "\(seen["badValueError"] ?? "") vs \(expected)")
        #expect(seen["afterBadValue"] as? String == "8")
        #expect((seen["wrongToken"] as? String ?? "").hasPrefix("403 Forbidden"), "\(seen["wrongToken"] ?? "")")
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").stdout.contains("\"nights\":8"))
    }
}
