-- Kept responses were plain JSON (API-key secrets included) under plain SHA-256 fingerprints:
-- they are dropped, not converted. A retry of one of them within its 24 hours runs again.
DELETE FROM "idempotency_keys";

-- AlterTable
ALTER TABLE "idempotency_keys" DROP COLUMN "claim_id",
DROP COLUMN "body",
DROP COLUMN "headers",
ADD COLUMN "response" BYTEA,
ADD COLUMN "response_bytes" INTEGER NOT NULL,
ALTER COLUMN "status" SET NOT NULL;

-- CreateTable
CREATE TABLE "idempotency_mentions" (
    "tag" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,

    CONSTRAINT "idempotency_mentions_pkey" PRIMARY KEY ("tag","key_id","idempotency_key")
);

-- CreateIndex
CREATE INDEX "idempotency_mentions_key_id_idempotency_key_idx" ON "idempotency_mentions"("key_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "idempotency_mentions" ADD CONSTRAINT "idempotency_mentions_key_id_idempotency_key_fkey" FOREIGN KEY ("key_id", "idempotency_key") REFERENCES "idempotency_keys"("key_id", "idempotency_key") ON DELETE CASCADE ON UPDATE CASCADE;
