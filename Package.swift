// swift-tools-version: 6.2
import CompilerPluginSupport
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
        // Off by default. `swift build --traits SafeReferences` builds the
        // identity map with `weak` references and Swift arrays instead of
        // unowned counts in hand-managed buffers (Sources/ModelStore/Unsafe):
        // slower, same behaviour; for checking a suspicion of a memory bug.
        .trait(
            name: "SafeReferences",
            description: "Weak references and ordinary ARC instead of the unsafe identity map (slower)."
        )
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
            dependencies: ["CSQLite", "CSwiftRuntime", "ModelStoreMacros"],
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
        // VFS and allocator) in a process of its own. Test-only.
        .executableTarget(
            name: "ReliabilityWorker",
            dependencies: ["ModelStore", "ModelStoreDynamic", "ReliabilitySupport"],
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
            dependencies: ["ModelStore", "ReliabilitySupport", "ReliabilityWorker"]
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

// `.ci/run` builds the sanitizer passes with MODELSTORE_SANITIZER_SUBSET set:
// the package then declares only the library, its dynamic layer and the
// suites those passes run, so that they do not build swift-crypto's
// BoringSSL, Yams, swift-argument-parser or store-tool under a sanitizer.
// Any other build sees the whole package.
if Context.environment["MODELSTORE_SANITIZER_SUBSET"] != nil {
    let sanitizerSubset: Set = [
        "CSQLite", "CSwiftRuntime", "ModelStoreMacros", "ModelStore", "ModelStoreDynamic",
        "ModelStoreTests", "SwiftDataShapeTests",
    ]
    package.targets.removeAll { !sanitizerSubset.contains($0.name) }
    // The shared suites' PostgreSQL runs (`StoreKind.postgres`) are not
    // part of the sanitizer passes: without the target they compile out.
    for target in package.targets {
        target.dependencies.removeAll { dependency in
            guard case .byNameItem(let name, _) = dependency else { return false }
            return name == "ModelStorePostgres"
        }
    }
    package.products.removeAll { $0.name != "ModelStore" }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return !location.hasSuffix("swift-syntax.git")
    }
}
