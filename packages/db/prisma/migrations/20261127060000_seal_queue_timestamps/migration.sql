-- The seal queue holds each entry's timestamp beside its id: the sealer finds a queued entry
-- in its month's partition alone, where by id alone it looked into every month, so that a
-- batch cost more the more months the log kept. Rows queued before this column, and any a
-- server of the previous version queues during an upgrade, keep NULL: the sealer finds
-- those by id alone.
ALTER TABLE "log_seal_queue" ADD COLUMN "entry_timestamp" TIMESTAMPTZ(3);

UPDATE "log_seal_queue" AS q SET "entry_timestamp" = e."timestamp"
FROM "log_entries" AS e WHERE e."id" = q."entry_id";
