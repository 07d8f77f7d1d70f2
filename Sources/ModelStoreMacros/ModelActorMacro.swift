import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: turns an actor into one that owns a model context, as
/// SwiftData's macro of the same name does.
///
/// It adds the container and the executor (a `DefaultSerialModelExecutor`
/// over a context made from the container), an `init(modelContainer:)` that
/// makes them, and the `ModelActor` conformance, whose `unownedExecutor`
/// runs the actor's code on that executor: everything the actor does with
/// `modelContext` happens on one serial queue, so the context, which is not
/// `Sendable`, never leaves it.
///
/// Every name the expansion uses is qualified with its module, so that a
/// member of the actor named `ModelContext` or `Swift` cannot capture it.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.modelActorNotAnActor))
            return []
        }
        return [
            "nonisolated let modelExecutor: any ModelStore.ModelExecutor",
            "nonisolated let modelContainer: ModelStore.ModelContainer",
            """
            init(modelContainer: ModelStore.ModelContainer) {
                let modelContext = ModelStore.ModelContext(modelContainer)
                self.modelExecutor = ModelStore.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): ModelStore.ModelActor {}")]
    }
}
