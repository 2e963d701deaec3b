-- An entry's search document is bounded (issue 20): building it costs time per word, and an
-- entry of 16 KiB of metadata made of short keys and values held the ingest's transaction
-- for about 4 ms each, enough for a batch of 1,000 such entries to run into the
-- transaction limit. The document now takes the first 4,096 characters of the metadata's
-- JSON text (as the database writes it: keys ordered shortest first, then bytewise); all
-- other fields are bounded by the schema and are taken whole. The qualifier lexemes are
-- unchanged. PostgreSQL 15 cannot change a generated column's expression: the column and
-- its index are dropped and added again, which rewrites the table once.
ALTER TABLE "log_entries" DROP COLUMN "search";

ALTER TABLE "log_entries" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, regexp_replace(
        coalesce("event", '') || ' ' || coalesce("actor_id", '') || ' ' || coalesce("actor_email", '') || ' ' ||
        coalesce("actor_type", '') || ' ' || coalesce("target_id", '') || ' ' || coalesce("target_type", '') || ' ' ||
        coalesce("ip", '') || ' ' || coalesce("user_agent", '') || ' ' || coalesce("city", '') || ' ' ||
        coalesce("country", '') || ' ' || coalesce("region", '') || ' ' || left("metadata"::text, 4096),
        '[^[:alnum:]]+', ' ', 'g'))
    || array_to_tsvector(array_remove(ARRAY[
        'event:' || "event", 'actorid:' || "actor_id", 'actoremail:' || lower("actor_email"),
        'ip:' || "ip", 'result:' || "result"], NULL))
) STORED;

CREATE INDEX "log_entries_search_idx" ON "log_entries" USING GIN ("search");

-- The digests and salts of an entry are random hex that does not compress: stored without
-- the attempt to compress them (a large share of a wide entry's insert). New partitions
-- take the setting from the parent.
ALTER TABLE "log_entries" ALTER COLUMN "digests" SET STORAGE EXTERNAL,
    ALTER COLUMN "salts" SET STORAGE EXTERNAL;
