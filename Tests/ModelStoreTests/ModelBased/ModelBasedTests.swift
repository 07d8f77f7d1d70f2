import Foundation
import Testing
@testable import ModelStore

/// Random sequences of operations against ModelStore and against a plain
/// in-memory model of the same object graph (`MBOracle`), compared after
/// every step. The seed is fixed, printed, and can be set with
/// `MODELSTORE_MODEL_SEED`; `MODELSTORE_STRESS=1` runs many more sequences.
/// A failing sequence is shrunk and printed as Swift-like steps.
@Suite("Model-based: random operations against an oracle")
struct ModelBasedTests {
    static let defaultSeed: UInt64 = 0x5EED_0018

    /// The run's seed: `MODELSTORE_MODEL_SEED` (decimal, or hex with 0x) or the default.
    static var seed: UInt64 {
        guard let text = ProcessInfo.processInfo.environment["MODELSTORE_MODEL_SEED"] else { return defaultSeed }
        let parsed = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let parsed else { preconditionFailure("MODELSTORE_MODEL_SEED=\(text) is not a number") }
        return parsed
    }

    static var isStress: Bool { ProcessInfo.processInfo.environment["MODELSTORE_STRESS"] == "1" }

    /// On PostgreSQL each sequence makes a schema on the server, so fewer
    /// sequences run there.
    @Test(
        "Inserts, attribute changes, relationship edits, deletes by every rule, saves, rollbacks, refetches and reopens agree with the oracle",
        arguments: StoreKind.backends)
    func randomSequences(kind: StoreKind) throws {
        let seed = Self.seed
        let sequences = kind == .postgres ? (Self.isStress ? 2_000 : 40) : (Self.isStress ? 20_000 : 300)
        print("Model-based test on \(kind): \(sequences) sequences from seed \(seed) (MODELSTORE_MODEL_SEED=\(seed) repeats it)")
        var seeds = SeededGenerator(seed: seed)
        for index in 0..<sequences {
            let sequenceSeed = seeds.next()
            let length = 30 + Int(sequenceSeed % 31)
            let generated = MBRunner.generate(seed: sequenceSeed, count: length)
            // PostgreSQL's text cannot hold NUL: a save refuses it, naming
            // it (PostgresValueTests), so the strings there use U+0001.
            let steps = kind == .postgres ? generated.map(\.withoutNUL) : generated
            let mode = MBRunner.Mode(sequence: index)
            guard let failure = try MBRunner(mode, on: kind).run(steps) else { continue }
            let shrunk = MBShrinker.shrink(steps, failure: failure) { candidate in
                (try? MBRunner(mode, on: kind))?.run(candidate)
            }
            let replay = try MBRunner(mode, on: kind)
            let final = replay.run(shrunk.steps) ?? shrunk.failure
            Issue.record(
                """
                Model-based sequence \(index) of seed \(seed) (MODELSTORE_MODEL_SEED=\(seed)) failed after \
                \(steps.count) steps; shrunk to \(replay.transcript.count) steps:
                \(replay.transcript.map { "    " + $0 }.joined(separator: "\n"))
                After the last step: \(final.message)
                (\(mode), on \(kind))
                """)
            return
        }
    }

    @Test("The shrinker keeps only the steps a failure needs")
    func shrinkerFindsTheNeededSteps() throws {
        let steps: [MBStep] = (0..<40).map { .setAttribute($0, attribute: 0, .int($0)) }
        // Fails once steps 7 and 23 have both run, at the later one.
        let fails: ([MBStep]) -> MBFailure? = { candidate in
            let serials = candidate.map { step -> Int in
                if case .setAttribute(let serial, _, _) = step { return serial }
                return -1
            }
            guard let first = serials.firstIndex(of: 7), let second = serials.firstIndex(of: 23) else { return nil }
            return MBFailure(step: max(first, second), signature: "both", message: "")
        }
        let failure = try #require(fails(steps))
        let shrunk = MBShrinker.shrink(steps, failure: failure, fails: fails)
        #expect(shrunk.steps == [.setAttribute(7, attribute: 0, .int(7)), .setAttribute(23, attribute: 0, .int(23))])
    }
}

extension MBStep {
    /// The step with NUL in its strings replaced by U+0001.
    var withoutNUL: MBStep {
        switch self {
        case .insert(let entity, let serial, let values): .insert(entity, serial: serial, values.map(\.withoutNUL))
        case .insertRelated(let holder, let relationship, let serial, let values):
            .insertRelated(holder: holder, relationship: relationship, serial: serial, values.map(\.withoutNUL))
        case .setAttribute(let serial, let attribute, let value): .setAttribute(serial, attribute: attribute, value.withoutNUL)
        default: self
        }
    }
}

extension MBValue {
    fileprivate var withoutNUL: MBValue {
        guard case .string(let text) = self else { return self }
        return .string(text.replacingOccurrences(of: "\u{0}", with: "\u{1}"))
    }
}
