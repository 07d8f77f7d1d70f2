-- Data only: trips to Iceland without notes get the packing reminder the
-- app now shows by default. Plain SQL runs as it is, in the script's
-- transaction; it must not change tables (use a .yaml script for that).
UPDATE "Trip" SET "notes" = 'Pack a rain jacket' WHERE "destination" = 'Iceland' AND "notes" IS NULL;
