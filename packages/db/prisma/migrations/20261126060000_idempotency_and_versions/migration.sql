-- AlterTable
ALTER TABLE "users" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "key_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "claim_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "status" INTEGER,
    "body" JSONB,
    "headers" JSONB,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("key_id","idempotency_key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
