/// Every workload, in issue order. Later issues add 6 and 8 here.
enum Catalog {
    static var all: [any Workload] {
        [
            InsertWorkload(),
            FetchWorkload(),
            UpdateWorkload(),
            LookupWorkload(),
            SaveOneWorkload(),
            RelationshipsWorkload(),
            OpenContainerWorkload(),
            PropertySetWorkload(),
            MigrationWorkload(),
        ]
    }
}
