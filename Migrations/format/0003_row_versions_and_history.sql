CREATE TABLE "_modelstore_transactions" ("token" INTEGER PRIMARY KEY AUTOINCREMENT, "timestamp" REAL NOT NULL, "author" TEXT, "bundleIdentifier" TEXT NOT NULL, "processIdentifier" TEXT NOT NULL) STRICT;
CREATE TABLE "_modelstore_changes" ("id" INTEGER PRIMARY KEY, "token" INTEGER NOT NULL, "entity" TEXT NOT NULL, "kind" TEXT NOT NULL, "properties" TEXT, "rows" TEXT NOT NULL, "tombstone" TEXT) STRICT;
CREATE INDEX "_modelstore_changes.token" ON "_modelstore_changes" ("token");
