-- Search and statistics read the analytics store (ClickHouse) now (issue 43): the word index and
-- the kept counts, which only they read, are no longer paid for by every ingest and seal.
DROP INDEX IF EXISTS "log_entries_search_idx";
ALTER TABLE "log_entries" DROP COLUMN "search";
DROP TABLE "log_entry_counts";
DROP TABLE "log_actor_counts";
ALTER TABLE "log_chain" DROP COLUMN "counted";

-- Changes the store must take over from PostgreSQL, in order: entries a redaction altered or
-- retention removed one by one (`resync`, by id), and a month retention removed whole
-- (`remove`: its sealed entries up to `through_seq`, but the retention records). Written in
-- the transaction that makes the change; deleted once the store holds it.
CREATE TABLE "search_index_changes" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "entry_ids" TEXT[],
    "from_time" TIMESTAMPTZ(3),
    "to_time" TIMESTAMPTZ(3),
    "through_seq" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_index_changes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "search_index_changes_kind" CHECK ("kind" IN ('resync', 'remove'))
);

-- The store's state, one row: how far it holds the sealed log, which instance feeds it, and a
-- rebuild's progress.
CREATE TABLE "search_index_state" (
    "id" INTEGER NOT NULL,
    "indexed_through_seq" BIGINT NOT NULL DEFAULT 0,
    "indexed_at" TIMESTAMPTZ(3),
    "feeder" TEXT,
    "feeder_until" TIMESTAMPTZ(3),
    "rebuild_requested_at" TIMESTAMPTZ(3),
    "rebuild_started_at" TIMESTAMPTZ(3),
    "rebuild_through_seq" BIGINT,
    "rebuild_target_seq" BIGINT,
    "rebuild_live" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "search_index_state_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "search_index_state_one_row" CHECK ("id" = 1)
);

INSERT INTO "search_index_state" ("id") VALUES (1);

-- An export of a search (`query`) holds exactly its hits among the entries the store held when
-- it was created (`through_seq`).
ALTER TABLE "exports" ADD COLUMN "query" TEXT, ADD COLUMN "through_seq" BIGINT;
