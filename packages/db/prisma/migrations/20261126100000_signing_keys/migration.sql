-- The public keys that sign checkpoints (decisions §9): the first instance registers its
-- key (from seq 1); a rotation adds the next one, signed by the previous key and by itself.
-- The key with the highest from_seq is the active one: only it may start and sign.
CREATE TABLE "signing_keys" (
    "fingerprint" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "from_seq" BIGINT NOT NULL,
    "previous_key_signature" TEXT,
    "new_key_signature" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("fingerprint")
);

CREATE UNIQUE INDEX "signing_keys_from_seq_key" ON "signing_keys"("from_seq");
