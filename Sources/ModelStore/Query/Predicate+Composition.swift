import Foundation

// Composing predicates. On Apple platforms a predicate calls another with
// `#Predicate { other.evaluate($0) && $0.isActive }`; Linux's Foundation
// lacks the expression that `evaluate` builds there
// (`PredicateExpressions.PredicateEvaluate` exists only in Apple's build of
// Foundation), and its `#Predicate` refuses the call. These functions build
// the same composition without the macro, and the fetch translates it to SQL
// like any other predicate.

extension Predicate {
    /// A predicate that holds when both `lhs` and `rhs` hold, as
    /// `#Predicate { lhs.evaluate($0) && rhs.evaluate($0) }` does on Apple
    /// platforms.
    ///
    /// ```swift
    /// let cheap = #Predicate<Trip> { $0.budget < 500 }
    /// let soon = #Predicate<Trip> { $0.startDate < deadline }
    /// let trips = try context.fetch(FetchDescriptor(predicate: .and(cheap, soon)))
    /// ```
    public static func and<Model>(_ lhs: Predicate<Model>, _ rhs: Predicate<Model>) -> Predicate<Model> {
        Predicate<Model> { input in
            PredicateExpressions.Conjunction(lhs: PredicateCall(lhs, input), rhs: PredicateCall(rhs, input))
        }
    }

    /// A predicate that holds when `lhs` or `rhs` holds, as
    /// `#Predicate { lhs.evaluate($0) || rhs.evaluate($0) }` does on Apple
    /// platforms.
    public static func or<Model>(_ lhs: Predicate<Model>, _ rhs: Predicate<Model>) -> Predicate<Model> {
        Predicate<Model> { input in
            PredicateExpressions.Disjunction(lhs: PredicateCall(lhs, input), rhs: PredicateCall(rhs, input))
        }
    }

    /// A predicate that holds when `predicate` does not, as
    /// `#Predicate { !predicate.evaluate($0) }` does on Apple platforms.
    public static func not<Model>(_ predicate: Predicate<Model>) -> Predicate<Model> {
        Predicate<Model> { input in
            PredicateExpressions.Negation(PredicateCall(predicate, input))
        }
    }
}

/// Evaluates a whole predicate on the value of a variable of the enclosing
/// one: what `PredicateEvaluate` is in Apple's Foundation.
///
/// It cannot be encoded (a predicate is encoded only with a configuration
/// that names the types it may use, which this expression has no way to
/// pass on): encoding and decoding throw.
struct PredicateCall<Input>: StandardPredicateExpression {
    typealias Output = Bool

    let predicate: Predicate<Input>
    let argument: PredicateExpressions.Variable<Input>

    init(_ predicate: Predicate<Input>, _ argument: PredicateExpressions.Variable<Input>) {
        self.predicate = predicate
        self.argument = argument
    }

    func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        try predicate.evaluate(try argument.evaluate(bindings))
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "a composed predicate cannot be decoded"))
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            predicate, .init(codingPath: encoder.codingPath, debugDescription: "a composed predicate cannot be encoded"))
    }
}

extension PredicateCall: SQLTranslatablePredicateExpression {
    /// The called predicate's condition, with its variable standing for what
    /// the argument stands for.
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let term = try translator.translate(argument)
        return try translator.bound(predicate.expression, variable: predicate.variable.key, to: term)
    }
}
