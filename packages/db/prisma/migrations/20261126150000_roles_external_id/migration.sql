-- An identity provider's id for a user (SCIM `externalId`): unique when set, NULLs apart.
ALTER TABLE "users" ADD COLUMN "external_id" TEXT;
CREATE UNIQUE INDEX "users_external_id_key" ON "users"("external_id");

-- Roles as records (a SCIM Group is one). A role held by users needs no record; members are
-- the users whose `roles` hold the id, so there is no membership table to keep in step.
CREATE TABLE "roles" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "external_id" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "roles_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "roles_external_id_key" ON "roles"("external_id");
CREATE INDEX "roles_created_at_id_idx" ON "roles"("created_at", "id");
