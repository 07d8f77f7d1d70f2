import Foundation

/// The value a property of type `Value` holds while a partial fetch
/// (`FetchDescriptor.propertiesToFetch`) has not read it: zero, false, empty.
/// The object never shows it: the generated getter loads the real value
/// first. Nil for types without an obvious empty value (URL).
func placeholderValue<Value>(_ type: Value.Type) -> Value? {
    switch type {
    case let integer as any BinaryInteger.Type: return integer.zero as? Value
    case is Bool.Type: return false as? Value
    case is Double.Type: return 0.0 as? Value
    case is Float.Type: return Float(0) as? Value
    case is String.Type: return "" as? Value
    case is Data.Type: return Data() as? Value
    case is Date.Type: return Date(timeIntervalSince1970: 0) as? Value
    case is Decimal.Type: return Decimal.zero as? Value
    case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? Value
    default: return nil
    }
}
