-- Search qualifiers become lexemes of the indexed document (`event:user.login`,
-- `actorid:<id>`, `actoremail:<lowercased email>`, `ip:<ip>`, `result:<result>`), so that one
-- GIN scan answers a whole query, qualifiers included, and the column's lexeme statistics
-- let the planner tell rare queries (inverted index, then sort) from common ones (the
-- newest-first index, stopping early). Words are split at non-alphanumerics and can never
-- contain `:`, so no word matches a qualifier lexeme. PostgreSQL 15 cannot change a
-- generated column's expression: the column (and its index) is dropped and added again,
-- which rewrites the table once.
ALTER TABLE "log_entries" DROP COLUMN "search";

ALTER TABLE "log_entries" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, regexp_replace(
        coalesce("event", '') || ' ' || coalesce("actor_id", '') || ' ' || coalesce("actor_email", '') || ' ' ||
        coalesce("actor_type", '') || ' ' || coalesce("target_id", '') || ' ' || coalesce("target_type", '') || ' ' ||
        coalesce("ip", '') || ' ' || coalesce("user_agent", '') || ' ' || coalesce("city", '') || ' ' ||
        coalesce("country", '') || ' ' || coalesce("region", '') || ' ' || "metadata"::text,
        '[^[:alnum:]]+', ' ', 'g'))
    || array_to_tsvector(array_remove(ARRAY[
        'event:' || "event", 'actorid:' || "actor_id", 'actoremail:' || lower("actor_email"),
        'ip:' || "ip", 'result:' || "result"], NULL))
) STORED;

CREATE INDEX "log_entries_search_idx" ON "log_entries" USING GIN ("search");
