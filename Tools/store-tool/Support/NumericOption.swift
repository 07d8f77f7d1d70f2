import ArgumentParser

/// The ranges of store-tool's numeric options, checked while the command
/// line is parsed: a value out of range is a usage error (exit 64) naming
/// the option and the value, like a value that is not a number at all.
///
/// | Option | Range |
/// |---|---|
/// | `--wait SECONDS` | 0 to 86,400 (a day), fractions allowed |
/// | `--limit N`, `--offset N` | 0 to 9,223,372,036,854,775,807 |
/// | `show --depth N` | 0 to 100 |
/// | `migrate --to VERSION` | a script version: digits, such as 0002 |
///
/// `inf`, `nan`, `1e300` and negative numbers are refused rather than
/// clamped: a silently different value would be a silently different answer.
enum NumericOption {
    /// The longest `--wait`, in seconds: SQLite's busy timeout is a 32-bit
    /// count of milliseconds (about 24 days); a day is more than any lock
    /// should be waited for.
    static let maximumWait: Double = 86_400
    /// The deepest `show --depth`: each level is one more nested call, and
    /// a deeper tree is not readable anyway.
    static let maximumDepth = 100

    /// Parses `--wait`: seconds from 0 to `maximumWait`.
    /// - Throws: `ValidationError` naming the range.
    static func seconds(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value >= 0, value <= maximumWait else {
            throw ValidationError("expected a number of seconds from 0 to \(Int(maximumWait))")
        }
        return value
    }

    /// `seconds` as whole milliseconds, as SQLite's busy timeout takes them.
    static func milliseconds(_ seconds: Double) -> Int {
        // In range by construction (0...86_400_000); clamped again so that a
        // value set in code can never trap.
        Int(min(max(0, seconds), maximumWait) * 1000)
    }

    /// Parses `--limit` and `--offset`: a whole number, 0 or more.
    /// - Throws: `ValidationError` naming the range.
    static func count(_ text: String) throws -> Int {
        guard let value = Int(text), value >= 0 else {
            throw ValidationError("expected a whole number from 0 to \(Int.max)")
        }
        return value
    }

    /// Parses `show --depth`: 0 to `maximumDepth`.
    /// - Throws: `ValidationError` naming the range.
    static func depth(_ text: String) throws -> Int {
        guard let value = Int(text), (0...maximumDepth).contains(value) else {
            throw ValidationError("expected a whole number from 0 to \(maximumDepth)")
        }
        return value
    }

    /// Parses `migrate --to`: a script version, digits only (`0002`), as
    /// the scripts' file names start; `-1` or `+3` would be read as numbers.
    /// - Throws: `ValidationError` naming the form.
    static func version(_ text: String) throws -> String {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), Int(text) != nil else {
            throw ValidationError("expected a script version: digits, such as 0002")
        }
        return text
    }
}
