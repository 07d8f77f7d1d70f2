// swift-tools-version: 6.2
import PackageDescription

// The benchmark lives in its own package so that apps depending on ModelStore
// never fetch GRDB: it is a contender here, and only here.
let package = Package(
    name: "ModelStoreBenchmarks",
    platforms: [.macOS(.v14)],
    traits: [
        // On by default: ModelStore builds its macro plugin. CI turns it off
        // (`--disable-default-traits`) and loads the plugin of the root
        // package's debug build instead, so that its release build of the
        // benchmark does not compile swift-syntax optimized (see README.md,
        // "The regression guard in CI").
        .trait(
            name: "BuildsMacroPlugin",
            description: "Build ModelStore's macro plugin (off: pass -load-plugin-executable for one built already)."
        ),
        .default(enabledTraits: ["BuildsMacroPlugin"]),
    ],
    dependencies: [
        .package(
            name: "ModelStore", path: "../..",
            traits: [.trait(name: "BuildsMacroPlugin", condition: .when(traits: ["BuildsMacroPlugin"]))]),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        // The raw postgres-nio contender of `--postgres`; the same URL and
        // version as the root package's, so that both resolve to one copy.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The system's libsqlite3 for the raw C contender (not ModelStore's
        // internal CSQLite module).
        .systemLibrary(
            name: "CSQLiteBench",
            path: "Sources/CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "modelstore-benchmark",
            dependencies: [
                "CSQLiteBench",
                .product(name: "ModelStore", package: "ModelStore"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ModelStorePostgres", package: "ModelStore"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            // No DWARF in the release binary: BoringSSL's C objects, which
            // postgres-nio brings, carry DWARF 5 forms that Debian 12's
            // valgrind (3.19) cannot read, and it then refuses the binary,
            // so that instruction-guard.sh could not count. The symbol table
            // stays, which is what callgrind's --toggle-collect needs.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--strip-debug"], .when(configuration: .release))]
        ),
    ],
    swiftLanguageModes: [.v6]
)
