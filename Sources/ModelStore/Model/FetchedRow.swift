/// What a fetched object keeps of its row until it needs its state: its
/// context and entity (`StateLink`) and its row key. `@Model` stores one in
/// every object (`_$fetchedRow`) and makes the object's `ModelState` from it
/// on first use, so that an object that is fetched and only read is one
/// allocation, not two.
///
/// A fetch of N objects used to allocate N states as well: the second
/// allocation per object was most of what a fetch cost beyond reading the
/// rows (its malloc, and its memory written and paid for in cache misses and
/// page faults). An object's state is made when something needs more than
/// the row: a write, an observer, its identifier, a relationship fault, an
/// insert or delete.
///
/// Noncopyable, so that it has a deinit: it runs while its object is freed,
/// and takes the object's entry out of its context's identity map, as the
/// state's deinit does for objects that have one. Either may run first; the
/// identity map removes an entry only while its object is being freed, so
/// the second finds nothing to do.
///
/// Public only because the code that `@Model` generates in an app's
/// module names it; hidden from the documentation, not API.
@_documentation(visibility: internal)
public struct FetchedRow: ~Copyable {
    /// The context and entity the row was fetched by; nil for an object
    /// that was not fetched.
    let link: StateLink?
    /// The row's key; meaningful when `link` is set.
    let rowID: Int64
    /// The row's version when it was read (see `ModelState.version`).
    let version: Int64

    /// Nothing fetched: the value of an object made by the app.
    public init() {
        link = nil
        rowID = 0
        version = 0
    }

    init(link: StateLink, rowID: Int64, version: Int64) {
        self.link = link
        self.rowID = rowID
        self.version = version
    }

    deinit {
        link?.objectWillBeFreed(rowID: rowID)
    }
}
