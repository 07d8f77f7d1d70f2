// swift-tools-version: 6.2
import CompilerPluginSupport
import Foundation
import PackageDescription

let package = Package(
    name: "ModelStore",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ModelStore", targets: ["ModelStore"]),
        .library(name: "ModelStoreScripts", targets: ["ModelStoreScripts"]),
        .library(name: "ModelStorePostgres", targets: ["ModelStorePostgres"]),
        .executable(name: "modelstore-example", targets: ["modelstore-example"]),
        .executable(name: "store-tool", targets: ["store-tool"]),
    ],
    traits: [
        // Off by default. `swift build --traits default,SafeReferences` builds the
        // identity map with `weak` references and Swift arrays instead of
        // unowned counts in hand-managed buffers (Sources/ModelStore/Unsafe):
        // slower, same behaviour; for checking a suspicion of a memory bug.
        .trait(
            name: "SafeReferences",
            description: "Weak references and ordinary ARC instead of the unsafe identity map (slower)."
        ),
        // On by default: ModelStore depends on its macro plugin, which is
        // built with the package (and swift-syntax with it). A build that
        // turns it off must hand the compiler a plugin built already
        // (`-Xswiftc -load-plugin-executable -Xswiftc PATH#ModelStoreMacros`):
        // CI's release build of the benchmark does, with the debug build's
        // plugin, so that it does not compile swift-syntax optimized
        // (Tools/Benchmarks/README.md, "The regression guard in CI").
        .trait(
            name: "BuildsMacroPlugin",
            description: "Build the @Model macro plugin with the package (off: load one built already)."
        ),
        .default(enabledTraits: ["BuildsMacroPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "603.0.1"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // store-tool's `serve` only (its HTTP server and that server's
        // logger); nothing else builds them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Only a command plugin (`swift package generate-documentation`, run
        // by CI so that a broken link in the docs fails it): no target
        // depends on it, so it adds nothing to any build.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The PostgreSQL backend's foundation (ModelStorePostgres) only; no
        // other target depends on it, so an app that imports ModelStore
        // builds no NIO.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The system's libsqlite3, through a tiny module map and a shim for the
        // variadic configuration calls that Swift cannot call directly.
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Entry points of the Swift runtime that the standard library does
        // not expose, declared in C (see runtime.h); nothing to link. Used
        // only by Sources/ModelStore/Unsafe, and not under SafeReferences.
        .systemLibrary(
            name: "CSwiftRuntime",
            path: "Sources/CSwiftRuntime"
        ),
        .macro(
            name: "ModelStoreMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "ModelStore",
            dependencies: [
                "CSQLite", "CSwiftRuntime",
                .target(name: "ModelStoreMacros", condition: .when(traits: ["BuildsMacroPlugin"])),
            ],
            swiftSettings: [.define("MODELSTORE_SAFE_REFERENCES", .when(traits: ["SafeReferences"]))]
        ),
        // The schema-driven dynamic layer (objects as entity + values, the
        // filter language, import/export, check): store-tool's layer, on the
        // library; what they share is `package`, so apps never see it.
        .target(
            name: "ModelStoreDynamic",
            dependencies: ["ModelStore"]
        ),
        // The migration-script engine (YAML scripts, their checksums and
        // history), for store-tool and for apps that choose scripts: an app
        // that imports only ModelStore builds neither Yams nor swift-crypto.
        .target(
            name: "ModelStoreScripts",
            dependencies: [
                "ModelStore", .product(name: "Yams", package: "Yams"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ModelStoreScriptsTests",
            dependencies: ["ModelStoreScripts", "ModelStore"]
        ),
        .executableTarget(
            name: "modelstore-example",
            dependencies: ["ModelStore"],
            path: "Tools/Example",
            exclude: ["run.sh"]
        ),
        // Inspects and edits any store from the command line, through the
        // dynamic layer (Sources/ModelStoreDynamic).
        .executableTarget(
            name: "store-tool",
            dependencies: [
                "ModelStore", "ModelStoreDynamic", "ModelStoreScripts",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/store-tool",
            exclude: ["MANUAL.md", "timing"]
        ),
        .testTarget(
            name: "StoreToolTests",
            dependencies: ["ModelStore", "ModelStoreDynamic", "store-tool"],
            // serve's browser test's driver, a Python script the test runs.
            exclude: ["Browser"]
        ),
        // The library's own suites. They use no script or CLI dependency,
        // and PostgreSQL only where `canImport(ModelStorePostgres)`, so that
        // the sanitizer passes can build them alone (see `sanitizerSubset`
        // below).
        .testTarget(
            name: "ModelStoreTests",
            dependencies: ["ModelStore", "ModelStoreDynamic", "ModelStorePostgres"]
        ),
        // The child process of the reliability tests: saves and migrates while
        // the tests kill it, and runs the fault-injection sweeps (a failing
        // VFS and allocator) in a process of its own, and stands for a
        // second server of an app on PostgreSQL. Test-only.
        .executableTarget(
            name: "ReliabilityWorker",
            dependencies: ["ModelStore", "ModelStoreDynamic", "ModelStorePostgres", "ReliabilitySupport"],
            path: "Tests/ReliabilityWorker"
        ),
        // What the worker and the tests share: the scripted graphs, the fault
        // VFS and allocator, the sweeps and the readers of a store's state. A
        // library, not the executable's module: a test target cannot import
        // an executable's module in a sanitizer build.
        .target(
            name: "ReliabilitySupport",
            dependencies: ["ModelStore", "ModelStoreDynamic", "CSQLite"],
            path: "Tests/ReliabilitySupport"
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["ModelStore", "ModelStorePostgres", "ReliabilitySupport", "ReliabilityWorker"]
        ),
        // Files in SwiftData's exact spelling, with only the import changed:
        // the promise that a SwiftData data layer compiles and behaves the same.
        .testTarget(
            name: "SwiftDataShapeTests",
            dependencies: ["ModelStore"]
        ),
        // Models that the module's default isolation puts on the main actor,
        // as Xcode 26 does for new app targets; in Swift 6 mode, and the same
        // files (symbolic links) in Swift 5 mode with warnings as errors, so
        // that a warning in what @Model generates fails the build. The flag
        // is this target's own; it does not reach the library.
        .testTarget(
            name: "MainActorModelsTests",
            dependencies: ["ModelStore"],
            swiftSettings: [.defaultIsolation(MainActor.self)]
        ),
        .testTarget(
            name: "MainActorModelsSwift5Tests",
            dependencies: ["ModelStore"],
            swiftSettings: [
                .defaultIsolation(MainActor.self), .swiftLanguageMode(.v5), .unsafeFlags(["-warnings-as-errors"]),
            ]
        ),
        // The PostgreSQL store (`PostgresConfiguration`): a synchronous
        // executor over postgres-nio, the translation of the library's SQL,
        // the value mapping, the DDL and the bootstrap. A library of its
        // own, so that an app using only ModelStore builds no NIO.
        .target(
            name: "ModelStorePostgres",
            dependencies: ["ModelStore", .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        .testTarget(
            name: "ModelStorePostgresTests",
            dependencies: ["ModelStorePostgres", "ModelStore"]
        ),
        .testTarget(
            name: "ModelStoreMacrosTests",
            dependencies: [
                "ModelStoreMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `.ci/run` builds each sanitizer pass with MODELSTORE_SANITIZER_SUBSET set
// to the pass's name (`thread` or `address`): the package then declares only
// the library, its dynamic layer and that pass's suites, so that the pass
// builds neither swift-crypto's BoringSSL, Yams, swift-argument-parser nor
// store-tool under a sanitizer, nor the test files it does not run (the
// library's test target is most of a sanitizer build's time). Every test of
// the subset runs: the lists below are the passes' only lists, and a listed
// file that is not there stops the build. Any other build sees the whole package.
if let sanitizerPass = Context.environment["MODELSTORE_SANITIZER_SUBSET"] {
    // Files of Tests/ModelStoreTests that the suites of both passes share.
    let sharedTestFiles = [
        "Support.swift", "TestModels.swift", "TemporaryDirectory.swift", "SeededGenerator.swift",
        "Backend/PostgresTestStore.swift", "Migration/MigrationSupport.swift",
        "Backend/ForwardingDatabase.swift",
    ]
    let suitesOfPass: [String: (files: [String], targets: [String])] = [
        // Contexts on many tasks, merges between contexts and processes,
        // notifications, conflicts, history, and @ModelActor actors.
        "thread": (
            files: [
                "ConcurrencyTests.swift", "Concurrency/ContextMergeTests.swift",
                "Concurrency/CrossProcessMergeTests.swift", "Concurrency/SaveNotificationTests.swift",
                "Concurrency/SaveConflictTests.swift", "Concurrency/HistoryAPITests.swift",
                "Concurrency/MergeTestModels.swift",
            ],
            targets: ["SwiftDataShapeTests"]
        ),
        // The identity map's registry and the rest of Sources/ModelStore/Unsafe,
        // fetching, faulting, relationships, saves and undo.
        "address": (
            files: [
                "RowRegistryTests.swift", "IdentityMapInvariantTests.swift", "IdentityTests.swift",
                "ObjectLifetimeTests.swift", "LazyStateTests.swift", "FetchTests.swift", "Query/BatchFetchTests.swift",
                "Relationships/PrefetchTests.swift", "Relationships/FaultLoadingTests.swift",
                "Relationships/StoredRelationshipTests.swift",
                "Relationships/InverseTests.swift", "Relationships/LargeToManyTests.swift",
                "Relationships/InPlaceListTests.swift", "OrderedModelsTests.swift",
                "SaveAndRollbackTests.swift", "ChangeTrackingTests.swift", "Relationships/DeleteRuleTests.swift",
                "Undo/UndoTests.swift", "RoundTripTests.swift", "SQLiteTests.swift", "Relationships/GraphModels.swift",
                "Relationships/LongList.swift", "Query/QueryModels.swift",
            ],
            targets: []
        ),
    ]
    // The test target's other Swift files, to exclude (listing them, rather
    // than naming the kept files as its sources, keeps SwiftPM from warning
    // of each file left unhandled); a kept file that is not there stops here.
    func testFilesLeftOut(keeping kept: [String]) -> [String] {
        let folder = Context.packageDirectory + "/Tests/ModelStoreTests"
        let files = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        for file in kept where !files.contains(file) {
            fatalError("MODELSTORE_SANITIZER_SUBSET: Tests/ModelStoreTests/\(file) is in a pass's list but not in the folder")
        }
        return files.filter { !kept.contains($0) }
    }
    guard let pass = suitesOfPass[sanitizerPass] else {
        fatalError("MODELSTORE_SANITIZER_SUBSET is \"\(sanitizerPass)\"; it takes thread or address")
    }
    let sanitizerSubset = Set(
        ["CSQLite", "CSwiftRuntime", "ModelStoreMacros", "ModelStore", "ModelStoreDynamic", "ModelStoreTests"]
            + pass.targets)
    package.targets.removeAll { !sanitizerSubset.contains($0.name) }
    for target in package.targets {
        // The shared suites' PostgreSQL runs (`StoreKind.postgres`) are not
        // part of the sanitizer passes: without the target they compile out.
        target.dependencies.removeAll { dependency in
            guard case .byNameItem(let name, _) = dependency else { return false }
            return name == "ModelStorePostgres"
        }
        if target.name == "ModelStoreTests" { target.exclude = testFilesLeftOut(keeping: sharedTestFiles + pass.files) }
    }
    package.products.removeAll { $0.name != "ModelStore" }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return !location.hasSuffix("swift-syntax.git")
    }
}
