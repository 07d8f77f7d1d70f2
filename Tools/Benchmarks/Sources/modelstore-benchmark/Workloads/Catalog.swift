/// Every workload, in issue order. Later issues add 6, 8 and 11 here.
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
        ]
    }
}
