import SwiftSyntax

extension AttributeListSyntax {
    /// The first attribute spelled `@name` or `@ModelStore.name`.
    ///
    /// Macros see only syntax, so the module-qualified spelling (which the
    /// generated code itself uses) has to be recognised by hand.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            if attribute.attributeName.isNamed(name) { return attribute }
        }
        return nil
    }

    func contains(attributeNamed name: String) -> Bool {
        attribute(named: name) != nil
    }
}

extension TypeSyntax {
    /// Whether the type is spelled `name` or `ModelStore.name`.
    func isNamed(_ name: String) -> Bool {
        if let identifier = self.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == name && identifier.genericArgumentClause == nil
        }
        if let member = self.as(MemberTypeSyntax.self),
            let base = member.baseType.as(IdentifierTypeSyntax.self)
        {
            return base.name.text == "ModelStore" && member.name.text == name
        }
        return false
    }
}

extension DeclModifierListSyntax {
    func contains(_ keyword: Keyword) -> Bool {
        contains { $0.name.tokenKind == .keyword(keyword) }
    }

    /// The modifiers that still make sense on a private backing field.
    ///
    /// Access modifiers go, because the field is always `private`; `private(set)`
    /// goes with them since it is spelled as a `private` modifier.
    var withoutAccessControl: DeclModifierListSyntax {
        filter {
            switch $0.name.tokenKind {
            case .keyword(.private), .keyword(.fileprivate), .keyword(.internal),
                .keyword(.package), .keyword(.public), .keyword(.open):
                return false
            default:
                return true
            }
        }
    }
}

extension TokenSyntax {
    /// The identifier's name without backticks, as a column or field name.
    var bareName: String {
        identifier?.name ?? text
    }
}

extension AccessorBlockSyntax {
    /// Whether the block holds only `willSet`/`didSet`, i.e. the property is
    /// still stored; anything else (a getter) makes it computed.
    var isObserversOnly: Bool {
        guard case .accessors(let accessors) = self.accessors else { return false }
        return accessors.allSatisfy {
            $0.accessorSpecifier.tokenKind == .keyword(.willSet)
                || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
        }
    }
}
