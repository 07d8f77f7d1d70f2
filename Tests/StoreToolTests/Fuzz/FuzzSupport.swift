import Foundation
import Testing

/// The fuzz suite's settings: one seed per run, printed, and how many inputs
/// each test generates.
///
/// - `MODELSTORE_FUZZ_SEED=N` repeats a run (the seed is printed at the
///   start of every run); `MODELSTORE_FUZZ_SEED=random` draws a new one.
///   Without it the seed is fixed, so CI sees the same inputs every time.
/// - `MODELSTORE_STRESS=1` generates 100,000 inputs per in-process test
///   (and ten times the binary runs) instead of a few thousand.
enum Fuzz {
    static let seed: UInt64 = {
        let text = ProcessInfo.processInfo.environment["MODELSTORE_FUZZ_SEED"]
        let seed = text == "random" ? UInt64.random(in: 0...UInt64.max) : text.flatMap { UInt64($0) } ?? 0x5EED_0018
        print("fuzz: seed \(seed) (MODELSTORE_FUZZ_SEED=\(seed) repeats this run)")
        return seed
    }()

    static let isStress = ProcessInfo.processInfo.environment["MODELSTORE_STRESS"] == "1"

    /// `ci` inputs, or `stress` under MODELSTORE_STRESS=1.
    static func count(_ ci: Int, stress: Int) -> Int { isStress ? stress : ci }

    /// A generator for one test: the run's seed mixed with the test's name,
    /// so that each test's inputs do not depend on which others ran.
    static func random(_ test: String) -> FuzzRandom {
        FuzzRandom(seed: test.utf8.reduce(seed) { ($0 &* 0x100_0000_01B3) ^ UInt64($1) })
    }

    /// Runs `check` on each input on a thread of its own, with an 8 MiB stack
    /// like a main thread's, and waits at most `timeout` for each: a hang is
    /// reported with its input (a crash stops the process, after the seed
    /// was printed). `makeCheck` runs on that thread, so what it opens (a
    /// store) stays there.
    /// - Returns: the problems `check` reported (nil means fine), with their inputs.
    static func watched<Input: Sendable>(
        _ inputs: [Input], timeout: Duration = .seconds(20), describe: @escaping @Sendable (Input) -> String,
        makeCheck: @escaping @Sendable () throws -> (Input) throws -> String?
    ) -> [String] {
        let state = WatchState()
        let step = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                let check = try makeCheck()
                for input in inputs {
                    state.set(current: describe(input))
                    do {
                        if let problem = try check(input) { state.add("\(problem): \(describe(input))") }
                    } catch {
                        state.add("unexpected \(type(of: error)): \(error): \(describe(input))")
                    }
                    step.signal()
                }
            } catch {
                state.add("setting up failed: \(error)")
                for _ in inputs { step.signal() }
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
        let seconds = Double(timeout.components.seconds)
        for _ in inputs where step.wait(timeout: .now() + seconds) == .timedOut {
            return state.problems + ["no answer within \(timeout) (seed \(seed)): \(state.current)"]
        }
        return state.problems
    }
}

/// What the worker of `Fuzz.watched` shares with the waiting test.
/// `@unchecked Sendable`: every property is read and written under `lock`.
private final class WatchState: @unchecked Sendable {
    private let lock = NSLock()
    private var _current = ""
    private var _problems: [String] = []

    var current: String { lock.withLock { _current } }
    var problems: [String] { lock.withLock { _problems } }
    func set(current: String) { lock.withLock { _current = current } }
    func add(_ problem: String) { lock.withLock { _problems.append(problem) } }
}

/// SplitMix64: small, fast, and the same sequence on every platform for a seed.
struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64
    /// How often `condition()` is typed right for its property.
    var typedConditions = 0.85

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    /// Characters that break parsers: quotes, escapes, controls, combining
    /// marks, emoji, right-to-left, surrogates' neighbours, NUL.
    static let awkward: [Character] = [
        "\"", "'", "\\", "\0", "\n", "\r", "\t", "\u{7F}", "\u{1B}", "é", "e\u{301}", "\u{301}", "👩‍👩‍👧", "🇵🇹", "\u{200B}",
        "\u{FEFF}", "\u{202E}", "\u{2028}", "\u{FFFD}", "\u{10FFFF}", "\u{D7FF}", "ß", "İ", "ﬁ", "%", "_", "*", "(", ")", "[", "]",
        ",", ".", "=", "!", "<", ">", "&", "|", ":", "+", "-", "{", "}", "$", "#", "`", "~", "^",
    ]

    /// A random string of up to `length` characters, ASCII or awkward.
    mutating func text(_ length: Int) -> String {
        let count = int(0...length)
        var result = ""
        for _ in 0..<count {
            if chance(0.3) {
                result.append(pick(Self.awkward))
            } else if chance(0.1), let scalar = Unicode.Scalar(UInt32(int(0x80...0x2FFFF))) {
                result.unicodeScalars.append(scalar)
            } else {
                result.append(Character(Unicode.Scalar(UInt8(int(0x20...0x7E)))))
            }
        }
        return result
    }
}

/// How one run of the binary ended.
struct TimedRun {
    let run: ToolRun
    /// The signal that stopped it, if one did.
    let signal: Int32?
    let timedOut: Bool
}

extension Fixture {
    /// Runs store-tool like `runTool`, with its output in files (a full pipe
    /// cannot stall it) and at most `timeout` to finish: then it is killed
    /// and the run says so.
    static func runTimed(_ arguments: [String], in folder: URL, timeout: Duration = .seconds(60)) throws -> TimedRun {
        let binary = try #require(storeToolBinary, "store-tool must be built next to the tests")
        let out = folder.appending(path: "fuzz-stdout"), err = folder.appending(path: "fuzz-stderr")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path(percentEncoded: false), contents: nil) }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let timedOut = ended.wait(timeout: .now() + Double(timeout.components.seconds)) == .timedOut
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        let run = ToolRun(
            status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
        let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        return TimedRun(run: run, signal: signal, timedOut: timedOut)
    }
}
