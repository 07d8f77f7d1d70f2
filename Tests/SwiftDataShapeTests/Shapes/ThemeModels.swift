// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
// Transformable attributes: a type that is not Codable, stored through a
// `ValueTransformer` subclass, named by class or by registered name.
import Foundation
import ModelStore

struct RGBColor: Equatable {
    var red: Double
    var green: Double
    var blue: Double

    var data: Data {
        Data([red, green, blue].map { UInt8(($0 * 255).rounded()) })
    }

    init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    init?(data: Data) {
        guard data.count == 3 else { return nil }
        let bytes = Array(data)
        self.init(red: Double(bytes[0]) / 255, green: Double(bytes[1]) / 255, blue: Double(bytes[2]) / 255)
    }
}

final class ColorTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass {
        NSData.self
    }

    override class func allowsReverseTransformation() -> Bool {
        true
    }

    override func transformedValue(_ value: Any?) -> Any? {
        (value as? RGBColor)?.data
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return RGBColor(data: data)
    }
}

extension NSValueTransformerName {
    static let highlightTransformerName = NSValueTransformerName(rawValue: "HighlightTransformer")
}

@Model
final class Theme {
    @Attribute(.unique) var name: String
    @Attribute(.transformable(by: ColorTransformer.self)) var accent: RGBColor
    @Attribute(.transformable(by: ColorTransformer.self)) var background: RGBColor?
    @Attribute(.transformable(by: NSValueTransformerName.highlightTransformerName.rawValue)) var highlight: RGBColor?

    init(name: String, accent: RGBColor, background: RGBColor? = nil, highlight: RGBColor? = nil) {
        self.name = name
        self.accent = accent
        self.background = background
        self.highlight = highlight
    }
}

enum ThemeStore {
    static func register() {
        ValueTransformer.setValueTransformer(ColorTransformer(), forName: .highlightTransformerName)
    }

    static func container(url: URL) throws -> ModelContainer {
        register()
        let configuration = ModelConfiguration(url: url)
        return try ModelContainer(for: Theme.self, configurations: configuration)
    }
}
