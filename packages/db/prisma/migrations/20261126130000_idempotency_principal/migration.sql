-- The bound on kept bytes is per principal: the child keys of a principal share it, where
-- each API key had a bound of its own. Responses kept for keys that are gone can never be
-- replayed (their key no longer authenticates): they are dropped, not attributed.
ALTER TABLE "idempotency_keys" ADD COLUMN "principal" TEXT;
UPDATE "idempotency_keys" k SET "principal" = a."principal" FROM "api_keys" a WHERE a."id" = k."key_id";
DELETE FROM "idempotency_keys" WHERE "principal" IS NULL;
ALTER TABLE "idempotency_keys" ALTER COLUMN "principal" SET NOT NULL;

-- CreateIndex
CREATE INDEX "idempotency_keys_principal_created_at_idx" ON "idempotency_keys"("principal", "created_at");
