import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin entry point that exposes ModelStore's macros.
///
/// The library declares each macro with `#externalMacro(module:
/// "ModelStoreMacros", type: ...)`; the compiler finds the implementation by
/// the type names listed here, so renaming a type breaks the library.
@main
struct ModelStoreMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        AttributeMacro.self,
        RelationshipMacro.self,
        TransientMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
        ModelActorMacro.self,
    ]
}
