/// How many terminal cells text takes, as a terminal draws it: East Asian
/// wide and fullwidth characters and emoji take two, combining marks and
/// other zero-width characters none, everything else one. Counting
/// Characters instead would misalign a table's columns after `東京タワー`
/// (five Characters, ten cells) or an emoji.
///
/// The wide ranges are Unicode's East Asian Width `W` and `F` blocks (the
/// standard library does not expose that property); no locale is needed,
/// unlike the C library's `wcwidth`.
enum CellWidth {
    /// The cells `text` takes.
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The cells one Character takes: 0, 1 or 2.
    static func of(_ character: Character) -> Int {
        if character.isASCII { return character.asciiValue.map { $0 >= 0x20 && $0 != 0x7F ? 1 : 0 } ?? 1 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // An emoji drawn as one (by default, or asked for with U+FE0F).
        if first.properties.isEmojiPresentation
            || (first.properties.isEmoji && scalars.contains("\u{FE0F}"))
        {
            return 2
        }
        if isWide(first.value) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: return 1
        }
    }

    /// `text` cut to at most `width` cells, ending with "…" when it was cut.
    static func truncated(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let cells = of(character)
            if used + cells > width - 1 { break }
            result.append(character)
            used += cells
        }
        return result + "…"
    }

    /// East Asian Width W or F: Hangul Jamo, CJK radicals to Yi, Hangul
    /// syllables, CJK compatibility ideographs, vertical and small forms,
    /// fullwidth forms, and the supplementary ideographic planes.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}
