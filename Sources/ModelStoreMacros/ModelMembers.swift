import SwiftSyntax
import SwiftSyntaxBuilder

/// The members `@Model` adds to a model class.
///
/// Kept apart from ``ModelMacro`` so that the generated text (the contract
/// with the runtime library) can be read in one place.
struct ModelMembers {
    let type: TokenSyntax
    let properties: [PersistedProperty]
    /// `.unique([…])` and `.index([…])` from `#Unique` and `#Index`.
    var constraints: [String] = []
    /// The string literal of `@Model(originalName:)`, quotes included.
    var originalName: String? = nil
    /// The `@Model` superclass, for a subclass (see ``ModelSuperclass``).
    var superclass: TypeSyntax? = nil
    /// True for a `final class`: its property table need not be overridable.
    var isFinal = true

    var declarations: [DeclSyntax] {
        if superclass != nil {
            // The state, its accessors and the conformance are inherited.
            return [ordinalBase, rowInitializer, bindFunction, propertyTable, accessFunction, withMutationFunction]
                + (isFinal ? [] : [keyPathsFunction])
        }
        var result = modelState + [rowInitializer, bindFunction, propertyTable, accessFunction, withMutationFunction]
        if !isFinal { result.append(keyPathsFunction) }
        // Only when declared, so that a class without them expands as before
        // (the protocol's defaults answer for it).
        if !constraints.isEmpty {
            result.append(
                """
                @_documentation(visibility: internal) nonisolated public static var _$constraints: [ModelStore.Schema.Constraint] {
                ModelStore._$formingKeyPaths {
                [\(raw: constraints.joined(separator: ", "))]
                }
                }
                """)
        }
        if let originalName {
            result.append(
                """
                @_documentation(visibility: internal) nonisolated public static var _$originalEntityName: Swift.String? {
                \(raw: originalName)
                }
                """)
        }
        return result
    }

    /// The object's state, made on first use (`_$modelState`), and what a
    /// fetched object keeps of its row until then (`ModelStore.FetchedRow`),
    /// so that an object that is fetched and only read allocates no state.
    /// The state is lent (`_read`), not returned: a getter returned it
    /// retained, and a setter paid a retain and a release for it; it is made
    /// out of line, so that the accessors that use it stay small enough to
    /// be inlined. An
    /// object's state, once made, is never replaced, so the value yielded is
    /// the one just tested or stored. Unchecked exclusivity: both fields are
    /// read by every tracked accessor, and the runtime's check would cost
    /// more than the accessor; an object is confined to its context's
    /// isolation domain, and the library never holds an access to them
    /// across a call.
    ///
    /// Every member that a `PersistentModel` requirement or the library uses
    /// is nonisolated, and the fields are `nonisolated(unsafe)`, so that a
    /// model isolated to the main actor (explicitly, or by a module's default
    /// isolation) still conforms without isolation: the requirements are
    /// called from the library's nonisolated code. The same confinement
    /// makes it sound: the library touches an object only where its context
    /// is used, which for such a model is the main actor.
    ///
    /// The generated members live in the app's module, so what the library
    /// or a subclass's generated accessors reach stays `public`, marked
    /// `@_documentation(visibility: internal)` so that it is not in the
    /// app's documentation (`@_spi` would make every model file add an
    /// import). Nothing outside the class sets them: `_$modelStateIfMade` is
    /// set only by `_$makeModelState` (`private(set)`), and `_$fetchedRow`,
    /// written by the root class's `init(_$row:)` and read by
    /// `_$makeModelState`, is `private`.
    private var modelState: [DeclSyntax] {
        [
            "@_documentation(visibility: internal) @exclusivity(unchecked) nonisolated(unsafe) public private(set) var _$modelStateIfMade: ModelStore.ModelState? = nil",
            "@exclusivity(unchecked) nonisolated(unsafe) private var _$fetchedRow = ModelStore.FetchedRow()",
            """
            @_documentation(visibility: internal) nonisolated public var _$modelState: ModelStore.ModelState {
            _read {
            if _$modelStateIfMade == nil {
            _$makeModelState()
            }
            yield _$modelStateIfMade.unsafelyUnwrapped
            }
            }
            """,
            """
            @inline(never) nonisolated private func _$makeModelState() {
            _$modelStateIfMade = ModelStore.ModelState(fetched: _$fetchedRow)
            }
            """,
        ]
    }

    /// A subclass's properties take the ordinals after its superclass's
    /// (the whole hierarchy's properties share one ordinal space per object:
    /// dirty bits, faults and row columns), so they are numbered from the
    /// superclass's property count, computed once.
    private var ordinalBase: DeclSyntax {
        """
        private nonisolated enum _$Ordinals {
        static let base = ModelStore._$superclassPropertyCount(of: \(superclass?.trimmed ?? "Never").self)
        }
        """
    }

    /// The ordinal of a property as generated code spells it: a literal, or
    /// for a subclass an offset from the superclass's count.
    private func ordinal(_ property: PersistedProperty) -> String {
        superclass == nil ? "\(property.ordinal)" : "_$Ordinals.base + \(property.ordinal)"
    }

    /// `T.self` for a property's type: as written, or, for a declaration that
    /// leaves the type to inference (`var created = Date()`), through its key
    /// path, which carries the type the compiler inferred.
    private func metatype(_ property: PersistedProperty) -> String {
        if let type = property.type { return "(\(type.trimmedDescription)).self" }
        return "ModelStore._$valueType(of: { \\\(type.text).\(property.identifier.text) })"
    }

    /// `, transformedBy: <the option>` for a property with
    /// `.transformable(by:)`, which picks the runtime's overloads that store
    /// the value through its transformer; empty for any other property.
    private func transformerArgument(_ property: PersistedProperty) -> String {
        property.transformer.map { ", transformedBy: \($0.trimmedDescription)" } ?? ""
    }

    /// The stored field of a property: the backing field of a tracked `var`,
    /// the property itself for a `let`.
    private func field(_ property: PersistedProperty) -> String {
        property.isConstant ? "self.\(property.identifier.text)" : "self._\(property.name)"
    }

    /// Reads every persisted property from its column, by ordinal.
    ///
    /// It assigns the backing fields directly: going through the tracked
    /// setters would mark a freshly loaded object dirty. Its last statement
    /// keeps what the object needs of its row to make its state later
    /// (`PersistentRow.fetchedRow()`), which also tells the fetch that it
    /// has no state to set up; it must stay last, so that a row read while
    /// this one is (a loaded to-one) cannot take its place.
    private var rowInitializer: DeclSyntax {
        let assignments = properties.map { property -> CodeBlockItemSyntax in
            "\(raw: field(property)) = try row.value(at: \(raw: ordinal(property)), as: \(raw: metatype(property))\(raw: transformerArgument(property)))"
        }
        // A subclass reads its own properties, then lets its superclass read
        // the rest and keep the row (still last).
        let keepRow: CodeBlockItemSyntax =
            superclass == nil ? "self._$fetchedRow = row.fetchedRow()" : "try super.init(_$row: row)"
        let body = CodeBlockItemListSyntax((assignments + [keepRow]).map { $0.with(\.leadingTrivia, .newline) })
        return """
            @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {\(body)
            }
            """
    }

    /// Binds one persisted property's value, by ordinal, to a statement
    /// parameter: the save pipeline's fast path, which reads the backing field
    /// directly instead of applying a key path.
    private var bindFunction: DeclSyntax {
        let cases = properties.map { property -> String in
            "case \(property.ordinal):\n"
                + "try statement.bindValue(\(field(property)), as: \(metatype(property)), at: index\(transformerArgument(property)))"
        }
        guard superclass != nil else {
            let body = (cases + ["default:\nbreak"]).joined(separator: "\n")
            return """
                @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                switch ordinal {
                \(raw: body)
                }
                }
                """
        }
        let body = (cases + ["default:\ntry super._$bindValue(ordinal, to: statement, at: index)"]).joined(separator: "\n")
        return """
            @_documentation(visibility: internal) nonisolated public override func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
            switch ordinal - _$Ordinals.base {
            \(raw: body)
            }
            }
            """
    }

    private var propertyTable: DeclSyntax {
        let entries = properties.map { property -> String in
            if let arguments = property.relationshipArguments {
                return relationshipEntry(property, arguments: arguments)
            }
            let options = property.options.map(\.trimmedDescription).joined(separator: ", ")
            let originalName = property.originalName?.trimmedDescription ?? "nil"
            return "ModelStore.PropertyMetadata.attribute(name: \"\(property.name)\", "
                + "keyPath: \\\(type.text).\(property.identifier.text), "
                + "type: \(metatype(property)), ordinal: \(ordinal(property)), "
                + "options: [\(options)], originalName: \(originalName)"
                + (property.defaultValue.map { value in
                    ", defaultValue: { \(value.trimmedDescription) }"
                        + (DefaultExpression.kind(of: value).map { ", defaultKind: \($0)" } ?? "")
                } ?? "")
                + transformerArgument(property) + ")"
        }
        let array = entries.isEmpty ? "[]" : "[\n" + entries.joined(separator: ",\n") + "\n]"
        // A class that may be subclassed answers through dynamic dispatch, so
        // that `T._$persistentProperties` with `T` a subclass is the subclass's.
        // The superclass's entries are re-rooted at this class, so that
        // `\Car.name` (a different key path from `\Vehicle.name`) finds its
        // property in predicates, sort descriptors and `propertiesToFetch`.
        if let superclass {
            return """
                @_documentation(visibility: internal) nonisolated public override class var _$persistentProperties: [ModelStore.PropertyMetadata] {
                ModelStore._$rerooting(super._$persistentProperties, at: \(superclass.trimmed)._$keyPaths(rootedAt: \(type).self))
                + ModelStore._$formingKeyPaths {
                \(raw: array)
                }
                }
                """
        }
        return """
            @_documentation(visibility: internal) nonisolated public \(raw: isFinal ? "static" : "class") var _$persistentProperties: [ModelStore.PropertyMetadata] {
            ModelStore._$formingKeyPaths {
            \(raw: array)
            }
            }
            """
    }

    /// The key paths of the class's persisted properties, its superclass's
    /// first, rooted at `T`: a subclass's property table re-roots the
    /// entries it inherits with them. Generic, because a key path formed on
    /// a generic root is the one the literal on the concrete class forms
    /// (`\Self.name` cannot be formed in a class).
    private var keyPathsFunction: DeclSyntax {
        var parts = superclass.map { ["\($0.trimmed)._$keyPaths(rootedAt: T.self)"] } ?? []
        if !properties.isEmpty || parts.isEmpty {
            parts.append("[" + properties.map { "\\T.\($0.identifier.text)" }.joined(separator: ", ") + "]")
        }
        return """
            @_documentation(visibility: internal) nonisolated public static func _$keyPaths<T: \(type)>(rootedAt _: T.Type) -> [Swift.AnyKeyPath] {
            ModelStore._$formingKeyPaths {
            \(raw: parts.joined(separator: " + "))
            }
            }
            """
    }

    /// The table entry of a property with `@Relationship`: every argument
    /// spelled out, with SwiftData's defaults for the ones not given.
    private func relationshipEntry(
        _ property: PersistedProperty, arguments: [(label: String, expression: ExprSyntax)]
    ) -> String {
        func argument(_ label: String, default value: String) -> String {
            arguments.last { $0.label == label }?.expression.trimmedDescription ?? value
        }
        let options = arguments.filter { $0.label.isEmpty }.map(\.expression.trimmedDescription).joined(separator: ", ")
        return "ModelStore.PropertyMetadata.relationship(name: \"\(property.name)\", "
            + "keyPath: \\\(type.text).\(property.identifier.text), "
            + "type: \(metatype(property)), ordinal: \(ordinal(property)), "
            + "options: [\(options)], deleteRule: \(argument("deleteRule", default: ".nullify")), "
            + "minimumModelCount: \(argument("minimumModelCount", default: "nil")), "
            + "maximumModelCount: \(argument("maximumModelCount", default: "nil")), "
            + "originalName: \(argument("originalName", default: "nil")), "
            + "inverse: \(argument("inverse", default: "nil")), "
            + "forwardsChanges: \(argument("forwardsChanges", default: "false")))"
    }

    // The generic parameters have names no model can have: a model class
    // named `Member` (or `MutationResult`) would otherwise be shadowed by
    // them inside these functions.
    //
    // `access` is inlined into every getter: a read of an object that is not
    // observed is a test of the state and one call to the observation probe,
    // and a call of its own around that cost as much as the test.
    private var accessFunction: DeclSyntax {
        """
        @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<\(type), _$Member>) {
        if let state = _$modelStateIfMade {
        state.access(self, keyPath: keyPath())
        } else {
        ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
        }
        }
        """
    }

    private var withMutationFunction: DeclSyntax {
        """
        internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<\(type), _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
        }
        """
    }
}
