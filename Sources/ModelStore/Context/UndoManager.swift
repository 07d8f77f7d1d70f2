// Foundation on Darwin has `UndoManager` (NSUndoManager); swift-corelibs-
// foundation on Linux has none (Swift 6.3: the name is not declared). This
// file is a stand-in with Foundation's spelling and the members an editor
// and `ModelContext.undoManager` use, so that SwiftData code that assigns
// `context.undoManager = UndoManager()` compiles on Linux unchanged. Where
// Foundation has the type, it is Foundation's, and an app importing both
// Foundation and ModelStore sees one `UndoManager` (as for
// ValueTransformer.swift).
#if !canImport(Darwin)
import Foundation

/// Records operations so that they can be undone and redone: Foundation's
/// `UndoManager`, for Linux, where Foundation lacks it.
///
/// Operations are registered as closures (`registerUndo(withTarget:handler:)`)
/// and kept in groups; `undo()` runs the newest group's closures, newest
/// first, and what they register while undoing becomes the group that
/// `redo()` runs. A new registration outside undo and redo clears the redo
/// stack.
///
/// ```swift
/// let undoManager = UndoManager()
/// context.undoManager = undoManager
/// undoManager.beginUndoGrouping()
/// trip.name = "Porto"
/// trip.stops.append(Stop(title: "Ribeira"))
/// undoManager.endUndoGrouping()
/// undoManager.undo()   // both changes undone
/// ```
///
/// Grouping by event (`groupsByEvent`, on by default): a registration made
/// while no group is open opens one, and the group closes when the current
/// turn of the main actor ends, so everything one event handler changes is
/// undone together. That holds for registrations made on the main thread
/// and for the main context's changes. Linux has no run loop to end a turn
/// elsewhere: there the group stays open until `endUndoGrouping()`,
/// `undo()` or `redo()` closes it; code off the main actor (a
/// `@ModelActor`) groups explicitly with `beginUndoGrouping()` and
/// `endUndoGrouping()`, or turns `groupsByEvent` off.
///
/// Not `Sendable`: use it in one isolation domain, as the context it serves.
/// What it does not offer: nested groups are merged into their enclosing
/// group (`undoNestedGroup()` undoes a whole top-level group), there are no
/// undo notifications and no menu titles, and `prepare(withInvocationTarget:)`
/// (Objective-C forwarding) does not exist on Linux.
open class UndoManager {
    /// One registered operation; the target is held weakly, as Foundation
    /// does not retain targets: an operation whose target is gone is skipped.
    private struct Action {
        weak var target: AnyObject?
        let run: (AnyObject) -> Void
    }

    private struct Group {
        var actions: [Action] = []
        var name = ""
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The groups being built, outermost first; nested groups fold into
    /// their parent when they end.
    private var openGroups: [Group] = []
    /// True while the outermost open group is the one a registration opened
    /// on its own (see `groupsByEvent`).
    private var isEventGroupOpen = false
    private var registrationDisabledCount = 0
    /// The main-actor task that closes the event group at the end of the
    /// current turn; tests await it.
    private(set) var eventGroupClosing: Task<Void, Never>?

    /// True while `undo()` runs its group.
    public private(set) var isUndoing = false
    /// True while `redo()` runs its group.
    public private(set) var isRedoing = false
    /// Whether a registration made while no group is open opens a group that
    /// closes at the end of the main actor's current turn. True by default;
    /// when false, changes must be made inside `beginUndoGrouping()` and
    /// `endUndoGrouping()`.
    open var groupsByEvent = true
    /// How many groups the undo stack keeps (the oldest go first); 0, the
    /// default, keeps all.
    open var levelsOfUndo = 0 {
        didSet { trimUndoStack() }
    }

    /// Creates an undo manager with empty stacks.
    public init() {}

    /// How many groups are open (nested groups count).
    open var groupingLevel: Int { openGroups.count }
    /// True when `undo()` has a group to undo (an open event group counts).
    open var canUndo: Bool { !undoStack.isEmpty || openGroups.first.map { !$0.actions.isEmpty } == true }
    /// True when `redo()` has a group to redo.
    open var canRedo: Bool { !redoStack.isEmpty }
    /// False between `disableUndoRegistration()` and the matching
    /// `enableUndoRegistration()`: registrations are then ignored.
    open var isUndoRegistrationEnabled: Bool { registrationDisabledCount == 0 }
    /// The name of the group `undo()` would undo (see `setActionName(_:)`).
    open var undoActionName: String { (openGroups.first ?? undoStack.last)?.name ?? "" }
    /// The name of the group `redo()` would redo.
    open var redoActionName: String { redoStack.last?.name ?? "" }

    /// Opens a group: the operations registered until the matching
    /// `endUndoGrouping()` are undone together.
    open func beginUndoGrouping() {
        openGroups.append(Group())
    }

    /// Closes the group opened last. A closed top-level group with
    /// operations goes onto the undo stack (the redo stack while undoing);
    /// an empty one is dropped.
    open func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "UndoManager.endUndoGrouping() called with no open group")
        let group = openGroups.removeLast()
        if var parent = openGroups.popLast() {
            parent.actions += group.actions
            if parent.name.isEmpty { parent.name = group.name }
            openGroups.append(parent)
            return
        }
        isEventGroupOpen = false
        guard !group.actions.isEmpty else { return }
        if isUndoing {
            redoStack.append(group)
        } else {
            undoStack.append(group)
            trimUndoStack()
        }
    }

    /// Records an operation that undoes a change: `handler` is called with
    /// `target` when the operation's group is undone (or redone). Ignored
    /// while registration is disabled. Outside undo and redo, clears the
    /// redo stack.
    ///
    /// With no group open, `groupsByEvent` opens one (see the type's
    /// discussion); with `groupsByEvent` off, a group must be open (as in
    /// Foundation: a precondition).
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if !isUndoing && !isRedoing { redoStack.removeAll() }
        let action = Action(target: target) { object in
            // Only this method makes actions, always with a `TargetType` target.
            if let target = object as? TargetType { handler(target) }
        }
        if openGroups.isEmpty {
            // As in Foundation. Undo and redo always have their group open.
            precondition(
                groupsByEvent,
                "UndoManager.registerUndo(withTarget:handler:) with groupsByEvent off and no open group; call beginUndoGrouping() first")
            openEventGroup()
        }
        openGroups[openGroups.count - 1].actions.append(action)
    }

    /// Names the group being built, or the last one closed, for an editor's
    /// menu ("Undo Rename").
    open func setActionName(_ actionName: String) {
        if !openGroups.isEmpty {
            openGroups[openGroups.count - 1].name = actionName
        } else if isUndoing, !redoStack.isEmpty {
            redoStack[redoStack.count - 1].name = actionName
        } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].name = actionName
        }
    }

    /// Undoes the newest group: runs its operations newest first; what they
    /// register becomes the group `redo()` runs. An open event group is
    /// closed first.
    open func undo() {
        closeEventGroup()
        precondition(openGroups.isEmpty, "UndoManager.undo() called inside an open undo group; end it first")
        guard let group = undoStack.popLast() else { return }
        isUndoing = true
        defer { isUndoing = false }
        run(group)
    }

    /// Undoes the newest group; with nested groups merged into their parent
    /// (see the type's discussion), the same as `undo()`.
    open func undoNestedGroup() {
        undo()
    }

    /// Redoes the group undone last: runs its operations; what they
    /// register goes back onto the undo stack.
    open func redo() {
        closeEventGroup()
        precondition(openGroups.isEmpty, "UndoManager.redo() called inside an open undo group; end it first")
        guard let group = redoStack.popLast() else { return }
        isRedoing = true
        defer { isRedoing = false }
        run(group)
    }

    /// Stops recording registrations until `enableUndoRegistration()`;
    /// calls nest.
    open func disableUndoRegistration() {
        registrationDisabledCount += 1
    }

    /// Undoes one `disableUndoRegistration()`.
    open func enableUndoRegistration() {
        precondition(registrationDisabledCount > 0, "UndoManager.enableUndoRegistration() without a matching disable")
        registrationDisabledCount -= 1
    }

    /// Empties the undo and redo stacks (an open group keeps nothing either).
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        for index in openGroups.indices { openGroups[index].actions.removeAll() }
    }

    /// Removes every operation registered with `target`, from both stacks
    /// and the open groups; groups left empty go.
    open func removeAllActions(withTarget target: AnyObject) {
        func strip(_ group: inout Group) { group.actions.removeAll { $0.target === target || $0.target == nil } }
        for index in undoStack.indices { strip(&undoStack[index]) }
        for index in redoStack.indices { strip(&redoStack[index]) }
        for index in openGroups.indices { strip(&openGroups[index]) }
        undoStack.removeAll { $0.actions.isEmpty }
        redoStack.removeAll { $0.actions.isEmpty }
    }

    // MARK: Private

    private func run(_ group: Group) {
        beginUndoGrouping()
        openGroups[0].name = group.name
        for action in group.actions.reversed() {
            guard let target = action.target else { continue }
            action.run(target)
        }
        // What the operations registered is the group that reverses this one.
        let level = openGroups.count
        precondition(level == 1, "an undo operation left \(level - 1) undo group(s) open")
        let reverse = openGroups.removeLast()
        guard !reverse.actions.isEmpty else { return }
        if isUndoing {
            redoStack.append(reverse)
        } else {
            undoStack.append(reverse)
            trimUndoStack()
        }
    }

    private func openEventGroup() {
        beginUndoGrouping()
        isEventGroupOpen = true
        if Thread.isMainThread { closeEventGroupAfterMainActorTurn() }
    }

    /// Closes the open event group when the main actor's current turn ends.
    /// Called on the main thread, and by the main context (which lives on
    /// the main actor) for its changes: the main actor need not run on the
    /// main thread (a test runner's does not), so the thread alone cannot
    /// tell.
    func closeEventGroupAfterMainActorTurn() {
        guard isEventGroupOpen, eventGroupClosing == nil else { return }
        let reference = WeakUndoManager(manager: self)
        eventGroupClosing = Task { @MainActor in
            reference.manager?.closeEventGroup()
        }
    }

    /// Ends the group a registration opened, if it is still the only one open.
    private func closeEventGroup() {
        eventGroupClosing = nil
        guard isEventGroupOpen, openGroups.count == 1 else { return }
        endUndoGrouping()
    }

    private func trimUndoStack() {
        guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
        undoStack.removeFirst(undoStack.count - levelsOfUndo)
    }
}

/// A weak reference to an undo manager for the task that ends its event
/// group. `@unchecked Sendable`: the task is made only on the main thread or
/// for the main context, whose undo manager is used on the main actor, and
/// the task runs on the main actor.
private struct WeakUndoManager: @unchecked Sendable {
    weak var manager: UndoManager?
}
#endif
