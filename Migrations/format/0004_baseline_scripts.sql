ALTER TABLE "_modelstore_migrations" ADD COLUMN "baseline" INTEGER NOT NULL DEFAULT 0;
