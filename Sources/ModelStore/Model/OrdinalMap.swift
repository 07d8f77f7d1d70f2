/// Values by property ordinal, for the few relationships of one object that
/// are faults or prefetched at a time: a short array searched in order, with
/// `Dictionary`'s spelling. A dictionary hashed its key (with a per-process
/// seed) on every access, and a prefetch sets and takes one entry per holder.
struct OrdinalMap<Value>: ExpressibleByDictionaryLiteral {
    private var entries: [(ordinal: Int, value: Value)] = []

    /// An empty map. (The literal `[:]` goes through the variadic
    /// initializer, which built and mapped an array: 40 instructions.)
    init() {}

    init(dictionaryLiteral elements: (Int, Value)...) {
        entries = elements.map { (ordinal: $0.0, value: $0.1) }
    }

    var isEmpty: Bool { entries.isEmpty }

    private func index(of ordinal: Int) -> Int? {
        entries.firstIndex { $0.ordinal == ordinal }
    }

    /// The value of `ordinal`; setting nil removes it.
    subscript(ordinal: Int) -> Value? {
        get { index(of: ordinal).map { entries[$0].value } }
        set {
            switch (index(of: ordinal), newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append((ordinal, value))
            case (nil, nil): break
            }
        }
    }

    /// The value of `ordinal`, made `defaultValue` first when there is none;
    /// changed in place.
    subscript(ordinal: Int, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[ordinal] ?? defaultValue() }
        _modify {
            let index = index(of: ordinal) ?? {
                entries.append((ordinal, defaultValue()))
                return entries.count - 1
            }()
            yield &entries[index].value
        }
    }

    /// Removes the value of `ordinal` and returns it, if there was one.
    mutating func removeValue(forKey ordinal: Int) -> Value? {
        guard let index = index(of: ordinal) else { return nil }
        return entries.remove(at: index).value
    }
}
