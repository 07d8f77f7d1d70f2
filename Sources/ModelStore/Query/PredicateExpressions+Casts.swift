import Foundation

// `is`, `as?` and `as!` in a predicate, on an object of a class hierarchy
// (`#Predicate<Vehicle> { $0 is Car }`, `($0 as? Car)?.doors ?? 0 > 2`).
// The translator knows the Swift types; `QuerySQLBuilder+Casts.swift` checks
// them against the store's schema and writes the SQL.

private var noBindings: PredicateBindings { PredicateBindings() }

extension PredicateTranslator {
    /// The model class a cast or `is` names.
    /// - Throws: `ModelStoreError.unsupportedQuery` for any other type: in
    ///   SQL, a cast tests which entity an object's row belongs to.
    func castTarget(_ type: Any.Type, _ expression: Any) throws -> any PersistentModel.Type {
        guard let model = type as? any PersistentModel.Type else {
            throw unsupported(expression, "\(type) is not a @Model class (in SQL, is and as? test an object's class)")
        }
        return model
    }
}

extension PredicateExpressions.TypeCheck: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        switch try translator.translate(input) {
        case .constant: return .constant(try evaluate(noBindings))
        case .object(let reference, _):
            let target = try translator.castTarget(Desired.self, self)
            return .expression(.isInstance(reference, entity: target.entityName))
        case .expression, .toMany, .jsonArray:
            throw translator.unsupported(self, "in SQL, is tests model objects only")
        }
    }
}

extension PredicateExpressions.ConditionalCast: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        switch try translator.translate(input) {
        case .constant: return .constant(try evaluate(noBindings) as Any)
        case .object(let reference, _):
            // The object seen as `Desired`: what is read through it is NULL
            // (nil) where its row is of no entity of `Desired`'s.
            let target = try translator.castTarget(Desired.self, self)
            return .object(reference.casting(to: target.entityName), target)
        case .expression, .toMany, .jsonArray:
            throw translator.unsupported(self, "in SQL, as? casts model objects only")
        }
    }
}

extension PredicateExpressions.ForceCast: SQLTranslatablePredicateExpression {
    /// Only a cast that cannot fail (to the object's own class or a
    /// superclass, of an object that is not optional) is translated. Where
    /// `as!` fails, `Predicate.evaluate` throws; SQL would have to fail the
    /// statement from inside a row's test, and SQLite may test a row's
    /// conditions in any order, so `$0 is Car && ($0 as! Car).doors == 4`
    /// could fail where Swift does not. So the others are refused.
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        switch try translator.translate(input) {
        case .constant: return .constant(try evaluate(noBindings))
        case .object(let reference, _) where Input.Output.self is Desired.Type:
            let target = try translator.castTarget(Desired.self, self)
            return .object(reference.casting(to: target.entityName), target)
        case .object:
            throw translator.unsupported(
                self, "as! fails for objects of other classes (and nil), which SQL cannot report; use as? with ?? or if let")
        case .expression, .toMany, .jsonArray:
            throw translator.unsupported(self, "in SQL, as! casts model objects only")
        }
    }
}
