-- Kept responses were plain JSON (API-key secrets included) under plain SHA-256 fingerprints:
-- they are dropped, not converted. A retry of one of them within its 24 hours runs again.
DELETE FROM "idempotency_keys";

-- AlterTable
ALTER TABLE "idempotency_keys" DROP COLUMN "claim_id",
DROP COLUMN "body",
DROP COLUMN "headers",
ADD COLUMN "response" BYTEA,
ADD COLUMN "response_bytes" INTEGER NOT NULL,
ADD COLUMN "mentions" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
ALTER COLUMN "status" SET NOT NULL;

-- CreateIndex
CREATE INDEX "idempotency_keys_mentions_idx" ON "idempotency_keys" USING GIN ("mentions");
