-- Provenance of log entries. Entries stored before this migration cannot be told apart
-- reliably: an ingested entry may look exactly like one the service wrote. They are
-- marked `api` (never vouched for by the service), without ingested_by/received_at.
ALTER TABLE "log_entries"
    ADD COLUMN "origin" TEXT NOT NULL DEFAULT 'api',
    ADD COLUMN "ingested_by" TEXT,
    ADD COLUMN "received_at" TIMESTAMPTZ(3);

-- Every writer states the origin.
ALTER TABLE "log_entries" ALTER COLUMN "origin" DROP DEFAULT;

-- The `origin` filter of lists, newest first (a rare origin would otherwise scan the log).
CREATE INDEX "log_entries_origin_timestamp_id_idx" ON "log_entries"("origin", "timestamp" DESC, "id" DESC);

-- Redacting a deleted user finds the entries that target it.
CREATE INDEX "log_entries_target_id_idx" ON "log_entries"("target_id");
