import Foundation

/// Which history transactions to fetch or delete, as SwiftData's
/// `HistoryDescriptor`: a predicate, an order and a limit.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
/// descriptor.fetchLimit = 100
/// let transactions = try context.fetchHistory(descriptor)
/// ```
///
/// The comparisons at the top level of the predicate (alone or joined by
/// `&&`) of `token` or `transactionIdentifier` with a value, of `author`
/// with an ASCII string (`==`) and of `timestamp` with a date narrow the
/// transactions read in SQL, so that catching up after a token reads only
/// what came after it. Whatever else the predicate says is evaluated on the
/// transactions read; the result is the same either way.
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: Sendable {
    /// Which transactions; nil for all.
    public var predicate: Predicate<TransactionType>?
    /// Their order; empty for the history's order (oldest first).
    public var sortBy: [SortDescriptor<TransactionType>]
    /// At most this many, after the predicate and the order; nil for all.
    public var fetchLimit: Int?

    /// A descriptor of the transactions that match `predicate` (all when nil).
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        self.sortBy = []
    }

    /// A descriptor of the transactions that match `predicate`, in the order of `sortBy`.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

/// What a history predicate says in SQL terms (see `HistoryDescriptor`).
struct HistoryNarrowing {
    var range = HistoryRange()
    /// True when `range` says everything the predicate says: no need to
    /// evaluate it on what is read.
    var isExact = true
    /// The greatest token the predicate asks for transactions after (from
    /// `token > t` or `token >= t`): a catch-up, whose token may have expired.
    var catchUpAfter: Int64?
    /// A token of another store the predicate compares with.
    var foreignToken: DefaultHistoryToken?
    let storeIdentifier: String

    init(_ predicate: Predicate<DefaultHistoryTransaction>?, storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
        guard let predicate else { return }
        add(predicate.expression)
    }

    mutating func add(_ expression: Any) {
        if let narrowable = expression as? any HistoryNarrowable {
            narrowable.narrow(&self)
        } else {
            isExact = false
        }
    }

    /// Adds `property op constant`.
    mutating func add(_ property: HistoryProperty, _ op: PredicateExpressions.ComparisonOperator, _ constant: Any) {
        switch property {
        case .token, .transactionIdentifier:
            let value: Int64
            if property == .token {
                guard let token = constant as? DefaultHistoryToken else { return isExact = false }
                guard token.storeIdentifier == storeIdentifier else { return foreignToken = token }
                value = token.value
            } else {
                guard let number = constant as? Int64 else { return isExact = false }
                value = number
            }
            switch op {
            case .greaterThan: raiseLowerBound(value, catchUp: property == .token)
            case .greaterThanOrEqual: raiseLowerBound(value &- 1, catchUp: property == .token)
            case .lessThan: lowerUpperBound(value)
            case .lessThanOrEqual: lowerUpperBound(value &+ 1)
            @unknown default: isExact = false
            }
        case .timestamp:
            // Re-evaluated on what is read: the SQL bound is widened.
            isExact = false
            guard let date = constant as? Date else { return }
            let seconds = date.timeIntervalSince1970
            switch op {
            case .greaterThan, .greaterThanOrEqual: range.earliest = max(range.earliest ?? -.infinity, seconds)
            case .lessThan, .lessThanOrEqual: range.latest = min(range.latest ?? .infinity, seconds)
            @unknown default: break
            }
        case .author:
            isExact = false
        }
    }

    /// Adds `property == constant`.
    mutating func addEqual(_ property: HistoryProperty, _ constant: Any) {
        switch property {
        case .token, .transactionIdentifier:
            add(property, .greaterThanOrEqual, constant)
            add(property, .lessThanOrEqual, constant)
            if property == .token, let token = constant as? DefaultHistoryToken, token.storeIdentifier == storeIdentifier {
                // An equality is not a catch-up.
                if catchUpAfter == token.value &- 1 { catchUpAfter = nil }
            }
        case .author:
            // SQLite compares text byte by byte, Swift by canonical
            // equivalence; for ASCII they agree.
            guard let author = constant as? String, author.allSatisfy(\.isASCII),
                range.author == nil || range.author == author
            else { return isExact = false }
            range.author = author
        case .timestamp:
            add(property, .greaterThanOrEqual, constant)
            add(property, .lessThanOrEqual, constant)
        }
    }

    private mutating func raiseLowerBound(_ value: Int64, catchUp: Bool) {
        range.after = max(range.after ?? .min, value)
        if catchUp { catchUpAfter = max(catchUpAfter ?? .min, value) }
    }

    private mutating func lowerUpperBound(_ value: Int64) {
        range.before = min(range.before ?? .max, value)
    }
}

/// The properties of `DefaultHistoryTransaction` the store can filter on.
enum HistoryProperty {
    case token, transactionIdentifier, timestamp, author
}

/// A predicate expression that can say something about the transactions to
/// read in SQL.
protocol HistoryNarrowable {
    func narrow(_ narrowing: inout HistoryNarrowing)
}

/// A predicate operand: a property of the transaction, or a constant.
protocol HistoryOperand {
    var historyOperand: HistoryOperandValue? { get }
}

enum HistoryOperandValue {
    case property(HistoryProperty)
    case constant(Any)
}

extension PredicateExpressions.KeyPath: HistoryOperand {
    var historyOperand: HistoryOperandValue? {
        guard root is PredicateExpressions.Variable<DefaultHistoryTransaction> else { return nil }
        switch keyPath as AnyKeyPath {
        case \DefaultHistoryTransaction.token: return .property(.token)
        case \DefaultHistoryTransaction.transactionIdentifier: return .property(.transactionIdentifier)
        case \DefaultHistoryTransaction.timestamp: return .property(.timestamp)
        case \DefaultHistoryTransaction.author: return .property(.author)
        default: return nil
        }
    }
}

extension PredicateExpressions.Value: HistoryOperand {
    var historyOperand: HistoryOperandValue? { .constant(value) }
}

/// The property and the constant of `lhs op rhs`, with whether the
/// constant is on the left.
private func operands(_ lhs: Any, _ rhs: Any) -> (property: HistoryProperty, constant: Any, flipped: Bool)? {
    switch ((lhs as? any HistoryOperand)?.historyOperand, (rhs as? any HistoryOperand)?.historyOperand) {
    case (.property(let property)?, .constant(let constant)?): (property, constant, false)
    case (.constant(let constant)?, .property(let property)?): (property, constant, true)
    default: nil
    }
}

extension PredicateExpressions.Conjunction: HistoryNarrowable {
    func narrow(_ narrowing: inout HistoryNarrowing) {
        narrowing.add(lhs)
        narrowing.add(rhs)
    }
}

extension PredicateExpressions.Comparison: HistoryNarrowable {
    func narrow(_ narrowing: inout HistoryNarrowing) {
        guard let (property, constant, flipped) = operands(lhs, rhs) else { return narrowing.isExact = false }
        var op = self.op
        if flipped {
            switch op {
            case .lessThan: op = .greaterThan
            case .lessThanOrEqual: op = .greaterThanOrEqual
            case .greaterThan: op = .lessThan
            case .greaterThanOrEqual: op = .lessThanOrEqual
            @unknown default: return narrowing.isExact = false
            }
        }
        narrowing.add(property, op, constant)
    }
}

extension PredicateExpressions.Equal: HistoryNarrowable {
    func narrow(_ narrowing: inout HistoryNarrowing) {
        guard let (property, constant, _) = operands(lhs, rhs) else { return narrowing.isExact = false }
        narrowing.addEqual(property, constant)
    }
}
