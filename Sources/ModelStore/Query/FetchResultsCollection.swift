/// The results of `ModelContext.fetch(_:batchSize:)` or
/// `fetchIdentifiers(_:batchSize:)`, as SwiftData's `FetchResultsCollection`:
/// a random-access collection whose elements are loaded a batch at a time,
/// when an index in the batch is first read.
///
/// ```swift
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 500)
/// print(trips.count)            // no object loaded beyond the first batch
/// for trip in trips { … }       // one query per 500 objects
/// let last = trips[trips.count - 1]
/// ```
///
/// The fetch selects only the row keys of the matching rows, in order (eight
/// bytes a row). Reading an element whose batch is not loaded reads that
/// batch's rows by key in one query. The collection keeps the objects of the
/// last two batches it loaded; objects of earlier batches are released unless
/// the app holds them, so walking a large result takes constant memory. An
/// object read again after its batch was released is the same object when the
/// app still holds it (the context's identity map), otherwise a new one read
/// from the store.
///
/// The collection is the list of rows that matched when the fetch ran; an
/// element shows its object as it is when its batch loads. A collection of
/// objects holds its context, and belongs to the context's isolation domain.
///
/// - Complexity: `count`, `startIndex` and `endIndex` are O(1); reading an
///   element is O(1) when its batch is loaded, otherwise one query of up to
///   `batchSize` rows.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    /// Positions are offsets from 0.
    public typealias Index = Int
    /// The positions `0..<count`.
    public typealias Indices = Range<Int>

    private let elementCount: Int
    private let element: (Int) -> Element

    init(count: Int, element: @escaping (Int) -> Element) {
        self.elementCount = count
        self.element = element
    }

    /// The position of the first element: 0.
    public var startIndex: Int { 0 }
    /// One past the position of the last element: `count`.
    public var endIndex: Int { elementCount }
    /// The number of elements, known without loading any.
    public var count: Int { elementCount }

    /// The element at `position`, loading its batch when it is not loaded.
    /// `position` must be in `indices` (checked with a precondition).
    public subscript(position: Int) -> Element {
        precondition(
            position >= 0 && position < elementCount,
            "FetchResultsCollection index \(position) is out of range 0..<\(elementCount)")
        return element(position)
    }
}

/// Loads the batches of a `FetchResultsCollection` of objects and keeps the
/// last `keptBatches` of them.
final class FetchResultsBatches<Element> {
    /// How many loaded batches are held: the one being read and the one
    /// before it, so that reading across a batch boundary back and forth does
    /// not reload.
    static var keptBatches: Int { 2 }

    let count: Int
    private let batchSize: Int
    private let load: (Range<Int>) -> [Element]
    /// The loaded batches, oldest first: batch number and its elements.
    private var kept: [(batch: Int, elements: [Element])] = []

    /// - Parameters:
    ///   - first: the first batch's elements, loaded by the fetch (so that
    ///     the fetch itself throws when they cannot be loaded).
    ///   - load: the elements at the positions of a range, in order.
    init(count: Int, batchSize: Int, first: [Element], load: @escaping (Range<Int>) -> [Element]) {
        self.count = count
        self.batchSize = batchSize
        self.load = load
        if !first.isEmpty { kept = [(0, first)] }
    }

    func element(at position: Int) -> Element {
        let batch = position / batchSize
        let start = batch * batchSize
        if let loaded = kept.last(where: { $0.batch == batch }) { return loaded.elements[position - start] }
        let elements = load(start..<min(count, start + batchSize))
        kept.append((batch, elements))
        if kept.count > Self.keptBatches { kept.removeFirst() }
        return elements[position - start]
    }

    var collection: FetchResultsCollection<Element> {
        FetchResultsCollection(count: count) { [self] in element(at: $0) }
    }
}
