-- The audit log, partitioned by month of `timestamp` (issue 13): `from`/`to` read only the
-- months they name, retention drops whole months, and each month's indexes stay small.
-- Months are UTC, named log_entries_pYYYY_MM; the server creates the current month and the
-- next two ahead (hourly). A timestamp no month covers (a backfill far in the past or
-- future) goes to log_entries_default. The primary key must hold the partition key:
-- (id, timestamp) still finds an entry by id through its leading column.
ALTER TABLE "log_entries" RENAME TO "log_entries_unpartitioned";
ALTER TABLE "log_entries_unpartitioned" RENAME CONSTRAINT "log_entries_pkey" TO "log_entries_unpartitioned_pkey";

CREATE TABLE "log_entries" (
    "id" TEXT NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "event" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_email" TEXT,
    "actor_email_redacted" BOOLEAN NOT NULL DEFAULT false,
    "actor_type" TEXT NOT NULL,
    "target_id" TEXT,
    "target_type" TEXT,
    "ip" TEXT,
    "user_agent" TEXT,
    "city" TEXT,
    "country" TEXT,
    "region" TEXT,
    "lat" DOUBLE PRECISION,
    "lng" DOUBLE PRECISION,
    "result" TEXT NOT NULL,
    "trace_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "origin" TEXT NOT NULL,
    "ingested_by" TEXT,
    "received_at" TIMESTAMPTZ(3),
    "digests" JSONB,
    "salts" JSONB,
    "search" tsvector GENERATED ALWAYS AS (
        to_tsvector('simple'::regconfig, regexp_replace(
            coalesce("event", '') || ' ' || coalesce("actor_id", '') || ' ' || coalesce("actor_email", '') || ' ' ||
            coalesce("actor_type", '') || ' ' || coalesce("target_id", '') || ' ' || coalesce("target_type", '') || ' ' ||
            coalesce("ip", '') || ' ' || coalesce("user_agent", '') || ' ' || coalesce("city", '') || ' ' ||
            coalesce("country", '') || ' ' || coalesce("region", '') || ' ' || "metadata"::text,
            '[^[:alnum:]]+', ' ', 'g'))
        || array_to_tsvector(array_remove(ARRAY[
            'event:' || "event", 'actorid:' || "actor_id", 'actoremail:' || lower("actor_email"),
            'ip:' || "ip", 'result:' || "result"], NULL))
    ) STORED,

    CONSTRAINT "log_entries_pkey" PRIMARY KEY ("id", "timestamp")
) PARTITION BY RANGE ("timestamp");

CREATE TABLE "log_entries_default" PARTITION OF "log_entries" DEFAULT;

-- A month for each month of the existing rows (at most 36 back; older ones go to the
-- default partition, for retention to remove) up to two months ahead.
DO $$
DECLARE
    this_month CONSTANT timestamptz := date_trunc('month', now(), 'UTC');
    month timestamptz := greatest(
        date_trunc('month', coalesce((SELECT min("timestamp") FROM "log_entries_unpartitioned"), now()), 'UTC'),
        this_month - interval '36 months');
BEGIN
    WHILE month <= this_month + interval '2 months' LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF "log_entries" FOR VALUES FROM (%L) TO (%L)',
            'log_entries_p' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM'),
            month, month + interval '1 month');
        month := month + interval '1 month';
    END LOOP;
END $$;

INSERT INTO "log_entries" ("id", "timestamp", "event", "actor_id", "actor_email",
    "actor_email_redacted", "actor_type", "target_id", "target_type", "ip", "user_agent", "city",
    "country", "region", "lat", "lng", "result", "trace_id", "metadata", "origin", "ingested_by",
    "received_at", "digests", "salts")
SELECT "id", "timestamp", "event", "actor_id", "actor_email", "actor_email_redacted",
    "actor_type", "target_id", "target_type", "ip", "user_agent", "city", "country", "region",
    "lat", "lng", "result", "trace_id", "metadata", "origin", "ingested_by", "received_at",
    "digests", "salts"
FROM "log_entries_unpartitioned";

DROP TABLE "log_entries_unpartitioned";

-- On the parent: each partition gets its own (and each new one too).
CREATE INDEX "log_entries_timestamp_id_idx" ON "log_entries"("timestamp" DESC, "id" DESC);
CREATE INDEX "log_entries_actor_id_timestamp_id_idx" ON "log_entries"("actor_id", "timestamp" DESC, "id" DESC);
CREATE INDEX "log_entries_event_timestamp_id_idx" ON "log_entries"("event", "timestamp" DESC, "id" DESC);
CREATE INDEX "log_entries_origin_timestamp_id_idx" ON "log_entries"("origin", "timestamp" DESC, "id" DESC);
CREATE INDEX "log_entries_target_id_idx" ON "log_entries"("target_id");
CREATE INDEX "log_entries_search_idx" ON "log_entries" USING GIN ("search");
