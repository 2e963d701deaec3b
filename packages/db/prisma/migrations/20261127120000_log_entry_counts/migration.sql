-- Sealed entries counted per hour and per value of the few-valued fields a statistics facet
-- may count (every field but `actor.id`), and per day and actor id: a histogram or a facet
-- over a month reads these rows instead of every entry. The sealer adds what it seals in the
-- statement that seals it, retention takes away what it removes in the statement that removes
-- it; entries still in the seal queue are counted from the entries themselves.
-- A key of its own: `target_type` may be null, so the natural key cannot be the primary key,
-- and a table without one cannot be updated while a publication of all tables exists.
CREATE TABLE "log_entry_counts" (
    "id" BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "event" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "actor_type" TEXT NOT NULL,
    "target_type" TEXT,
    "n" BIGINT NOT NULL
);

CREATE UNIQUE INDEX "log_entry_counts_key" ON "log_entry_counts"
    ("hour", "event", "result", "origin", "actor_type", "target_type") NULLS NOT DISTINCT;

-- Each batch the sealer commits updates a row per day and actor it holds: pages left half
-- empty let PostgreSQL write each new row version beside the old one (a HOT update, no index
-- entry), and prune the old ones as it goes, without a vacuum.
CREATE TABLE "log_actor_counts" (
    "day" TIMESTAMPTZ(3) NOT NULL,
    "actor_id" TEXT NOT NULL,
    "n" BIGINT NOT NULL,
    CONSTRAINT "log_actor_counts_pkey" PRIMARY KEY ("day", "actor_id")
) WITH (fillfactor = 50);

-- A sealer of the previous version would seal without counting, and the counts would stay
-- short for good: each chain row now says it was counted, with no default, so that such a
-- sealer's insert fails and its entries stay queued for one that counts them. (The default
-- fills the rows already sealed, which the statements below count, without a rewrite.)
ALTER TABLE "log_chain" ADD COLUMN "counted" BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE "log_chain" ALTER COLUMN "counted" DROP DEFAULT;

-- Counted under the sealer's lock, so that no batch is sealed between the count and the
-- commit: every entry is then either counted here or still queued.
SELECT pg_advisory_xact_lock(7246614222);

INSERT INTO "log_entry_counts" ("hour", "event", "result", "origin", "actor_type", "target_type", "n")
SELECT date_bin('1 hour', e."timestamp", TIMESTAMPTZ '1970-01-01 00:00:00+00'), e."event", e."result",
    e."origin", e."actor_type", e."target_type", count(*)
FROM "log_entries" e
WHERE NOT EXISTS (SELECT 1 FROM "log_seal_queue" q WHERE q."entry_id" = e."id")
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO "log_actor_counts" ("day", "actor_id", "n")
SELECT date_bin('1 day', e."timestamp", TIMESTAMPTZ '1970-01-01 00:00:00+00'), e."actor_id", count(*)
FROM "log_entries" e
WHERE e."actor_id" IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM "log_seal_queue" q WHERE q."entry_id" = e."id")
GROUP BY 1, 2;
