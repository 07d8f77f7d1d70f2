import SwiftDiagnostics
import SwiftSyntax

/// An error the ModelStore macros report about a misused model declaration.
///
/// Every misuse gets its own message identifier so that tests, and tools that
/// filter diagnostics, can tell the cases apart without matching text.
struct ModelDiagnostic: DiagnosticMessage {
    let message: String
    let diagnosticID: MessageID
    var severity: DiagnosticSeverity { .error }

    private init(_ id: String, _ message: String) {
        self.message = message
        self.diagnosticID = MessageID(domain: "ModelStoreMacros", id: id)
    }

    static let notAClass = Self("notAClass", "'@Model' can only be applied to a class")
    static let modelActorNotAnActor = Self("modelActorNotAnActor", "'@ModelActor' can only be applied to an actor")
    static let genericClass = Self("genericClass", "'@Model' does not support generic classes")
    static let multipleBindings = Self("multipleBindings", "declare each persisted property on its own line")
    static let transientAndAttribute = Self(
        "transientAndAttribute", "a property cannot be both @Transient and @Attribute")
    static let transientAndRelationship = Self(
        "transientAndRelationship", "a property cannot be both @Transient and @Relationship")
    static let attributeAndRelationship = Self(
        "attributeAndRelationship", "a property cannot be both @Attribute and @Relationship")
    static let invalidOrdinal = Self(
        "invalidOrdinal", "'@_PersistedProperty' requires an integer literal ordinal")

    static func letWithInitialValue(_ name: String) -> Self {
        Self(
            "letWithInitialValue",
            "persisted constant '\(name)' has an initial value, so a fetched object could not take the stored one; "
                + "declare it with 'var', or set it in init")
    }

    static func letRelationship(_ name: String) -> Self {
        Self("letRelationship", "relationship '\(name)' must be declared with 'var': ModelStore maintains its inverse")
    }

    static func unstorableType(_ name: String, reason: String) -> Self {
        Self("unstorableType", "type of '\(name)' cannot be stored: \(reason)")
    }

    static func observers(_ name: String) -> Self {
        Self(
            "observers",
            "property observers are not supported on persisted property '\(name)'; "
                + "mark it @Transient or move the logic into a method")
    }

    static func missingDefault(_ name: String, attribute: String) -> Self {
        Self("missingDefault", "@\(attribute) property '\(name)' needs a default value")
    }

    static func constraintArgument(_ macro: String) -> Self {
        Self("constraintArgument", "#\(macro) takes arrays of key paths to stored properties, such as [\\.name, \\.date]")
    }

    static let originalNameArgument = Self(
        "originalNameArgument", "'@Model(originalName:)' takes a string literal")

    static func subclassEntityOptions(_ name: String) -> Self {
        Self(
            "subclassEntityOptions",
            "'@Model' subclass '\(name)' cannot declare #Unique, #Index or originalName: "
                + "its objects are stored in its root class's table; declare them on the root class")
    }

    static func lazyProperty(_ name: String) -> Self {
        Self("lazyProperty", "lazy property '\(name)' cannot be persisted; mark it @Transient")
    }
}

/// A fix-it message offered alongside a ``ModelDiagnostic``.
struct ModelFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "ModelStoreMacros", id: message) }

    static let useFinalClass = Self(message: "use 'final class'")
    static let useVar = Self(message: "replace 'let' with 'var'")
}

extension Diagnostic {
    /// An error at `node`, with at most one fix-it that replaces `old` by `new`.
    ///
    /// Fix-its here only ever swap one keyword, so a single replacement covers
    /// every case and keeps the call sites short.
    init(
        at node: some SyntaxProtocol,
        _ message: ModelDiagnostic,
        fixIt: ModelFixIt? = nil,
        replacing old: TokenSyntax? = nil,
        with new: TokenSyntax? = nil
    ) {
        var fixIts: [FixIt] = []
        if let fixIt, let old, let new {
            fixIts.append(FixIt(message: fixIt, changes: [.replace(oldNode: Syntax(old), newNode: Syntax(new))]))
        }
        self.init(node: Syntax(node), message: message, fixIts: fixIts)
    }
}
