-- Redactions the chain accounts for (decisions §9): what each user deletion's redaction
-- altered, one row per entry, keyed by the id of the `user.deleted` entry that names them
-- (in its metadata: the list, or above 1,000 entries its count and digest). Written in the
-- transaction that redacts and writes that entry. `position` keeps the list's order, over
-- which the digest is computed.
CREATE TABLE "log_redactions" (
    "deletion_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "entry_id" TEXT NOT NULL,
    "seq" BIGINT,
    "fields" TEXT[],

    CONSTRAINT "log_redactions_pkey" PRIMARY KEY ("deletion_id", "position")
);

CREATE INDEX "log_redactions_entry_id_idx" ON "log_redactions"("entry_id");
