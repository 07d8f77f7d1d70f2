#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// What store-tool knows about where its output goes.
enum Terminal {
    /// True when standard output is a terminal.
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    /// True when standard error is a terminal: progress is shown only then.
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// The terminal's width in columns (`COLUMNS` wins), 80 when unknown.
    static var width: Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Writes `store-tool: error: MESSAGE` as one line on stderr.
    static func error(_ message: String) {
        let line = message.replacingOccurrences(of: "\n", with: " ")
        // On a terminal, a progress line may be showing: the error replaces it.
        let erase = errorIsTerminal ? "\r\u{1B}[K" : ""
        FileHandle.standardError.write(Data("\(erase)store-tool: error: \(line)\n".utf8))
    }

    /// Writes a note on stderr (plans of dry runs go to stdout instead).
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    /// Shows `label done/total` on stderr, in place, only on a terminal.
    static func progress(_ label: String, _ done: Int, _ total: Int) {
        guard errorIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\(label) \(done)/\(total)\u{1B}[K".utf8))
        if done >= total { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// A progress line on stderr for a long command, written in place and
/// erased when the command ends, so that it never stays among the output.
/// It shows only when stderr is a terminal (nothing extra when piped), and
/// at most a few times a second's worth of rows: every `step` items.
/// Forced (`import --progress`) on a stderr that is not a terminal, it
/// writes whole lines instead, ten times less often, which a log keeps.
final class ProgressLine {
    private let isShown: Bool
    /// True on a terminal: one line rewritten in place, erased at the end.
    private let isInPlace: Bool
    private var shownAnything = false
    /// How many items pass between two updates.
    let step: Int

    /// - Parameters:
    ///   - whenOutputIsTerminal: also show it when standard output is the
    ///     terminal (commands whose output is a few lines at the end).
    ///   - forced: show it even when stderr is not a terminal, as lines.
    init(step: Int = 1000, whenOutputIsTerminal: Bool = true, forced: Bool = false) {
        self.step = step
        isInPlace = Terminal.errorIsTerminal
        isShown = forced || (Terminal.errorIsTerminal && (whenOutputIsTerminal || !Terminal.outputIsTerminal))
    }

    deinit { finish() }

    /// Shows `label done` or `label done/total` when `done` is a multiple of
    /// `step` (of ten steps when written as lines), or when `force`.
    func update(_ label: String, _ done: Int, total: Int? = nil, force: Bool = false) {
        guard isShown, force || done % (isInPlace ? step : step * 10) == 0 else { return }
        let count = total.map { "\(done)/\($0)" } ?? "\(done)"
        show("\(label) \(count)")
    }

    /// Shows a phase without a count (`delete: planning…`).
    func note(_ text: String) {
        guard isShown else { return }
        show(text)
    }

    private func show(_ text: String) {
        guard isInPlace else {
            FileHandle.standardError.write(Data("\(text)\n".utf8))
            return
        }
        FileHandle.standardError.write(Data("\r\(text)\u{1B}[K".utf8))
        shownAnything = true
    }

    /// Erases the line (lines written to a file or pipe stay).
    func finish() {
        guard shownAnything else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shownAnything = false
    }
}

/// Buffered writes to standard output (or a file), so that a million rows
/// cost a few thousand writes; flushed when done and before anything goes
/// to stderr.
final class Output {
    private var buffer: [UInt8] = []
    private let fileDescriptor: Int32
    /// On a terminal every line shows at once.
    private let flushesEachLine: Bool
    /// The `errno` of the first write that failed (a full disk, a closed
    /// pipe); nil while every write succeeded. Later writes are dropped.
    private(set) var failure: Int32?

    /// Writes to `fileDescriptor`, standard output by default.
    init(fileDescriptor: Int32 = STDOUT_FILENO) {
        self.fileDescriptor = fileDescriptor
        flushesEachLine = fileDescriptor == STDOUT_FILENO && Terminal.outputIsTerminal
        buffer.reserveCapacity(1 << 16)
    }

    deinit { flush() }

    /// Appends `text` and a newline.
    func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(10)
        if flushesEachLine || buffer.count >= 1 << 16 { flush() }
    }

    /// Writes what is buffered.
    func flush() {
        guard !buffer.isEmpty else { return }
        guard failure == nil else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        buffer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = write(fileDescriptor, base + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 {
                    failure = written < 0 ? errno : EIO
                    break
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
