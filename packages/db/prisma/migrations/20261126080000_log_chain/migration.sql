-- Tamper evidence (decisions §9): salted digests of the redactable fields, computed when an
-- entry is written; a queue of entries to seal; the hash chain and its signed checkpoints.
ALTER TABLE "log_entries"
    ADD COLUMN "digests" JSONB,
    ADD COLUMN "salts" JSONB;

CREATE TABLE "log_seal_queue" (
    "n" BIGSERIAL NOT NULL,
    "entry_id" TEXT NOT NULL,
    "canonical" TEXT,
    "written_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "log_seal_queue_pkey" PRIMARY KEY ("n")
);

CREATE TABLE "log_chain" (
    "seq" BIGINT NOT NULL,
    "entry_id" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "sealed_at" TIMESTAMPTZ(3) NOT NULL,
    "removed_at" TIMESTAMPTZ(3),

    CONSTRAINT "log_chain_pkey" PRIMARY KEY ("seq")
);

CREATE UNIQUE INDEX "log_chain_entry_id_key" ON "log_chain"("entry_id");

CREATE TABLE "log_checkpoints" (
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "log_checkpoints_pkey" PRIMARY KEY ("seq")
);

-- Entries written before the chain are sealed first, oldest first; the sealer computes
-- their digests and salts (digests IS NULL) and canonical form as it seals them.
INSERT INTO "log_seal_queue" ("entry_id")
SELECT "id" FROM "log_entries" ORDER BY "timestamp", "id";
