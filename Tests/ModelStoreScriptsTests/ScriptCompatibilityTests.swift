import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreScripts

/// Scripts and histories written before the engine used Yams and
/// swift-crypto read and verify as they did. The expected values below were
/// computed by the hand-written SHA-256 and YAML subset that ModelStore
/// carried before, from the same texts.
@Suite("Script compatibility with the earlier engine")
struct ScriptCompatibilityTests {
    /// Texts and their SHA-256 as the earlier hand-written implementation
    /// computed it (block boundaries at 55, 56 and 64 bytes, every byte
    /// value, non-ASCII text and a CR LF).
    static let checksums: [(name: String, bytes: [UInt8], hex: String)] = [
        (
            "fixed script",
            Array(
                "description: Fixed script for checksum stability\r\nsteps:\n  - addAttribute: Trip.note # café\n    type: string?\n  - sql: |\n      UPDATE \"Trip\" SET \"note\" = 'ü' WHERE 1;\n"
                    .utf8),
            "728971b27b362820eb82ffe05edcb348bd8f37b4de6ad1952e82eda11f0b999a"
        ),
        ("55 bytes", Array(repeating: UInt8(ascii: "x"), count: 55), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
        ("56 bytes", Array(repeating: UInt8(ascii: "x"), count: 56), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
        ("64 bytes", Array(repeating: UInt8(ascii: "x"), count: 64), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"),
        ("every byte", (0...255).map { UInt8($0) }, "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880"),
    ]

    @Test("Checksums equal the earlier implementation's, byte for byte")
    func checksumsAreStable() {
        for (name, bytes, hex) in Self.checksums {
            #expect(ScriptChecksum.hex(bytes) == hex, "\(name)")
            #expect(ScriptChecksum.hex(Data(bytes)) == hex, "\(name) as Data")
        }
    }

    @Test("The repository's scripts have the checksums the earlier engine recorded for them")
    func repositoryScriptChecksums() throws {
        let scripts = try ScriptFolder(url: repositoryMigrations).scripts()
        #expect(scripts.map(\.info.checksum) == [
            "768be263a08804861410cb8092813e140c8daef917ac487e412224b94371e5fc",
            "f8ba0d286fb7d5adfa7004b9180134a57ea7b1f70a056d93dacf131c15b264d5",
        ])
    }

    /// Every construct of the earlier YAML subset, and what it parsed each
    /// into (values and lines), as `render` writes a node.
    static let corpus: [(String, String)] = [
            ("mapping, comments, blank lines",
             "# leading comment\n\ndescription: Notes on stops # trailing\n  \nsteps: []\n# closing comment\n"),
            ("nested mapping block",
             "outer:\n  inner: value\n  other: 'two'\nlast: x\n"),
            ("sequence of mappings, continuation keys, dash alone, empty item",
             "steps:\n  - addAttribute: Stop.note\n    type: string?\n  -\n    removeEntity: Trip\n  -\n  - sql: x\n"),
            ("sequence at its key's indentation",
             "steps:\n- addIndex: Trip\n  attributes: [a, b]\n- removeEntity: Stop\n"),
            ("literal blocks: | and |-, indentation kept, blank and comment lines, trailing blanks dropped",
             "steps:\n  - sql: |\n      SELECT 1;\n\n        -- indented # not a comment\n      SELECT 2;   \n\n\n  - sql: |-\n      UPDATE \"Trip\" SET a = 1;\nafter: x\n"),
            ("scalars: plain, single, double quoted with escapes",
             "a: plain text here\nb: 'it''s # quoted'\nc: \"say \\\"hi\\\" \\\\ back\\nnew\\ttab\"\nd: \"a # b\" # c\ne: a#b\nf: x:y\n"),
            ("plain values that YAML could type stay text",
             "a: true\nb: 7\nc: null\nd: ~\ne: 1.0\nf: 2025-06-15\ng: string?\nh: -3\n"),
            ("flow lists",
             "a: [destination, startDate]\nb: []\nc: ['b c', \"d\", e] # comment\nd: [ x ]\n"),
            ("empty values",
             "a:\nb: x\nc:\n"),
            ("keys with spaces and dots", "my key: v\nTrip.name: w\n"),
            ("empty document", ""),
            ("only comments", "# nothing\n\n# here\n"),
            ("a script with every kind of step",
             "description: Split full names\nsteps:\n  - addAttribute: Person.firstName\n    type: string\n    default: \"\"\n  - addAttribute: Person.lastName\n    type: string?\n  - sql: |\n      UPDATE \"Person\" SET \"firstName\" = substr(\"fullName\", 1, instr(\"fullName\", ' ') - 1);\n  - removeAttribute: Person.fullName\n  - makeRequired: Person.lastName\n    backfill: unknown\n  - changeType: Trip.startDate\n    to: string\n    using: strftime('%Y-%m-%d', \"startDate\", 'unixepoch')\n  - addUnique: Trip\n    attributes: [destination, nights]\n  - addEntity: Traveller\n    attributes:\n      - name: fullName\n        type: string\n      - name: age\n        type: int?\n        unique: false\n"),
    ]

    static let earlierParses: [(String, String)] = [
        ("mapping, comments, blank lines",
         "{description: \"Notes on stops\"@3, steps: []@5}@3"),
        ("nested mapping block",
         "{outer: {inner: \"value\"@2, other: \"two\"@3}@2, last: \"x\"@4}@1"),
        ("sequence of mappings, continuation keys, dash alone, empty item",
         "{steps: [{addAttribute: \"Stop.note\"@2, type: \"string?\"@3}@2, {removeEntity: \"Trip\"@5}@5, \"\"@6, {sql: \"x\"@7}@7]@2}@1"),
        ("sequence at its key\'s indentation",
         "{steps: [{addIndex: \"Trip\"@2, attributes: [\"a\"@3, \"b\"@3]@3}@2, {removeEntity: \"Stop\"@4}@4]@2}@1"),
        ("literal blocks: | and |-, indentation kept, blank and comment lines, trailing blanks dropped",
         "{steps: [{sql: \"SELECT 1;\\n\\n  -- indented # not a comment\\nSELECT 2;   \"@2}@2, {sql: \"UPDATE \\\"Trip\\\" SET a = 1;\"@9}@9]@2, after: \"x\"@11}@1"),
        ("scalars: plain, single, double quoted with escapes",
         "{a: \"plain text here\"@1, b: \"it\\\'s # quoted\"@2, c: \"say \\\"hi\\\" \\\\ back\\nnew\\ttab\"@3, d: \"a # b\"@4, e: \"a#b\"@5, f: \"x:y\"@6}@1"),
        ("plain values that YAML could type stay text",
         "{a: \"true\"@1, b: \"7\"@2, c: \"null\"@3, d: \"~\"@4, e: \"1.0\"@5, f: \"2025-06-15\"@6, g: \"string?\"@7, h: \"-3\"@8}@1"),
        ("flow lists",
         "{a: [\"destination\"@1, \"startDate\"@1]@1, b: []@2, c: [\"b c\"@3, \"d\"@3, \"e\"@3]@3, d: [\"x\"@4]@4}@1"),
        ("empty values",
         "{a: \"\"@1, b: \"x\"@2, c: \"\"@3}@1"),
        ("keys with spaces and dots",
         "{my key: \"v\"@1, Trip.name: \"w\"@2}@1"),
        ("empty document",
         "{}@1"),
        ("only comments",
         "{}@1"),
        ("a script with every kind of step",
         "{description: \"Split full names\"@1, steps: [{addAttribute: \"Person.firstName\"@3, type: \"string\"@4, default: \"\"@5}@3, {addAttribute: \"Person.lastName\"@6, type: \"string?\"@7}@6, {sql: \"UPDATE \\\"Person\\\" SET \\\"firstName\\\" = substr(\\\"fullName\\\", 1, instr(\\\"fullName\\\", \\\' \\\') - 1);\"@8}@8, {removeAttribute: \"Person.fullName\"@10}@10, {makeRequired: \"Person.lastName\"@11, backfill: \"unknown\"@12}@11, {changeType: \"Trip.startDate\"@13, to: \"string\"@14, using: \"strftime(\\\'%Y-%m-%d\\\', \\\"startDate\\\", \\\'unixepoch\\\')\"@15}@13, {addUnique: \"Trip\"@16, attributes: [\"destination\"@17, \"nights\"@17]@17}@16, {addEntity: \"Traveller\"@18, attributes: [{name: \"fullName\"@20, type: \"string\"@21}@20, {name: \"age\"@22, type: \"int?\"@23, unique: \"false\"@24}@22]@20}@18]@3}@1"),
    ]

    @Test("Every construct of the earlier YAML subset parses to the same values on the same lines")
    func subsetParsesTheSame() throws {
        #expect(Self.corpus.map(\.0) == Self.earlierParses.map(\.0))
        for ((name, text), (_, expected)) in zip(Self.corpus, Self.earlierParses) {
            #expect(render(try ScriptYAML.parse(text)) == expected, "\(name)")
        }
    }

    @Test("CR LF line endings read as LF ones (the earlier subset read such a file as one line)")
    func crlf() throws {
        let text = "description: windows\nsteps:\n  - addAttribute: Trip.x\n    type: int\n  - sql: |\n      SELECT 1;\n      SELECT 2;\n"
        #expect(
            render(try ScriptYAML.parse(text.replacingOccurrences(of: "\n", with: "\r\n"))) == render(try ScriptYAML.parse(text)))
    }

    @Test(
        "What YAML refuses is an error naming the line",
        arguments: [
            ("steps:\n  - sql: a\nsteps: []\n", "line 1: the key steps appears twice"),
            ("steps:\n\t- sql: a\n", "line 2, column 1: found character that cannot start any token"),
            ("steps:\n  - changeType: Trip.x\n    using: strftime('%Y: %m', x)\n", "line 3, column 24: mapping values are not allowed"),
            ("steps:\n  - sql: \"a\" || b\n", "line 2, column 15: did not find expected comment or line break"),
            ("steps:\n  - sql: [a\n", "line 3, column 1:"),
            ("steps:\n  - ? [a]\n    : b\n", "line 2: a key must be text"),
        ])
    func yamlErrors(text: String, message: String) throws {
        #expect {
            try ScriptYAML.parse(text)
        } throws: { error in
            (error as? ScriptSyntaxError)?.description.hasPrefix(message) == true
        }
    }

    @Test("A script's YAML error is reported with its file and line")
    func errorsNameFileAndLine() throws {
        #expect {
            try ScriptReader.operations(yaml: "steps:\n  - sql: x\n  - addIndex: Trip\n  attributes: [a]\n", file: "/x/0001_a.yaml")
        } throws: { error in
            guard case ModelStoreError.invalidMigrationScript(let script, let reason) = error else { return false }
            return script == "/x/0001_a.yaml" && reason.hasPrefix("line 4, column 3: ")
        }
    }

    @Test("An applied script is checked by its checksum only: one the new parser would refuse still verifies")
    func appliedScriptsAreNotParsed() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        let broken = folder.appending(path: "0001_old.yaml")
        try "steps:\n  - sql: \"a\" || b\n".write(to: broken, atomically: true, encoding: .utf8)
        try StoreFile(url: url).execute(
            "INSERT INTO _modelstore_migrations (version, name, kind, checksum, fingerprintBefore, fingerprintAfter, appliedAt, duration) "
                + "VALUES ('0001', '0001_old.yaml', 'script', '\(ScriptChecksum.hex(try Data(contentsOf: broken)))', 'x', 'x', 0, 0)")
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: folder)
        #expect(try migrator.status().pending.isEmpty)
        #expect(try migrator.apply().applied.isEmpty)

        // A pending script that cannot be read is still reported by status.
        try "steps:\n  - dropEverything: Trip\n".write(to: folder.appending(path: "0002_new.yaml"), atomically: true, encoding: .utf8)
        #expect(throws: ModelStoreError.self) { try migrator.status() }
    }
}

/// A node as text: values quoted, each with its line.
func render(_ node: ScriptNode) -> String {
    switch node {
    case .scalar(let text, let line): "\(text.debugDescription)@\(line)"
    case .list(let items, let line): "[" + items.map(render).joined(separator: ", ") + "]@\(line)"
    case .map(let pairs, let line): "{" + pairs.map { "\($0.key): \(render($0.value))" }.joined(separator: ", ") + "}@\(line)"
    }
}
