/// The last saved value of one property of a changed object: what a model's
/// state hands its context when the object first becomes dirty
/// (`ModelStateOwner.modelDidBecomeDirty`), which the context keeps beside
/// the object in its list of changed objects (`OrderedModels`).
struct CommittedValue {
    /// The property's ordinal; -1 for none.
    let ordinal: Int
    let value: Any

    /// No value: the object had no row when it changed.
    static var none: CommittedValue { CommittedValue(ordinal: -1, value: ()) }
}
