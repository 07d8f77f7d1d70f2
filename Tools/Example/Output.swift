import Foundation
import ModelStore

// Small helpers that keep main.swift about ModelStore, not about formatting.

/// A failure of the example itself (the library's own errors are
/// `ModelStoreError`s).
struct ExampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Dates are written and read as `yyyy-MM-dd` in UTC, so the output is the
/// same on every machine.
let dayFormat = Date.ISO8601FormatStyle().year().month().day()

/// Parses `yyyy-MM-dd`.
func day(_ text: String) throws -> Date {
    try Date(text, strategy: dayFormat)
}

extension Date {
    var dayText: String { formatted(dayFormat) }
}

/// Prints a section heading.
func section(_ title: String) {
    print("\n== \(title)")
}

/// Prints rows as a table with left-aligned, padded columns.
func printTable(_ header: [String], _ rows: [[String]]) {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
        zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
            .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
    print(line(header))
    print(line(widths.map { String(repeating: "-", count: $0) }))
    for row in rows { print(line(row)) }
}

/// One table row per trip, as the final listing and the fetches show them.
func tripRows(_ trips: [Trip]) -> [[String]] {
    trips.map { trip in
        [
            "\(trip.persistentModelID)", trip.name, trip.destination, trip.startDate.dayText, trip.budgetText,
            trip.status.rawValue, trip.tags.joined(separator: ","), trip.notes ?? "-",
        ]
    }
}

let tripHeader = ["id", "name", "destination", "start", "budget", "status", "tags", "notes"]
