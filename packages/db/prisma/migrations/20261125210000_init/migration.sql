-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "email_lower" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT,
    "email_verified" BOOLEAN NOT NULL DEFAULT false,
    "roles" TEXT[],
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policies" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "effect" TEXT NOT NULL,
    "principals" TEXT[],
    "actions" TEXT[],
    "resources" TEXT[],
    "conditions" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "state_versions" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "policies" BIGINT NOT NULL DEFAULT 0,
    "api_keys" BIGINT NOT NULL DEFAULT 0,
    "user_roles" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "state_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "rate_limit_per_minute" INTEGER NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "is_root" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "log_entries" (
    "id" TEXT NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "event" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_email" TEXT,
    "actor_email_redacted" BOOLEAN NOT NULL DEFAULT false,
    "actor_type" TEXT NOT NULL,
    "target_id" TEXT,
    "target_type" TEXT,
    "ip" TEXT,
    "user_agent" TEXT,
    "city" TEXT,
    "country" TEXT,
    "region" TEXT,
    "lat" DOUBLE PRECISION,
    "lng" DOUBLE PRECISION,
    "result" TEXT NOT NULL,
    "trace_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    -- Every text field, split at non-alphanumerics, so that `login` finds `user.login`
    -- and an email or IP is found as the phrase of its parts.
    "search" tsvector GENERATED ALWAYS AS (
        to_tsvector('simple'::regconfig, regexp_replace(
            coalesce("event", '') || ' ' || coalesce("actor_id", '') || ' ' || coalesce("actor_email", '') || ' ' ||
            coalesce("actor_type", '') || ' ' || coalesce("target_id", '') || ' ' || coalesce("target_type", '') || ' ' ||
            coalesce("ip", '') || ' ' || coalesce("user_agent", '') || ' ' || coalesce("city", '') || ' ' ||
            coalesce("country", '') || ' ' || coalesce("region", '') || ' ' || "metadata"::text,
            '[^[:alnum:]]+', ' ', 'g'))
    ) STORED,

    CONSTRAINT "log_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "exports" (
    "id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "from" TIMESTAMPTZ(3) NOT NULL,
    "to" TIMESTAMPTZ(3) NOT NULL,
    "events" TEXT[],
    "include_metadata" BOOLEAN NOT NULL,
    "estimated_records" INTEGER NOT NULL,
    "total_records" INTEGER,
    "file_size_bytes" BIGINT,
    "error" TEXT,
    "key_id" TEXT NOT NULL,
    "claimed_by" TEXT,
    "heartbeat_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "file_deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "exports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_lower_key" ON "users"("email_lower");

-- CreateIndex
CREATE INDEX "users_created_at_id_idx" ON "users"("created_at", "id");

-- CreateIndex
CREATE INDEX "users_roles_idx" ON "users" USING GIN ("roles");

-- CreateIndex
CREATE UNIQUE INDEX "policies_name_key" ON "policies"("name");

-- CreateIndex
CREATE INDEX "policies_created_at_id_idx" ON "policies"("created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");

-- At most one root key, even when instances start together (Prisma cannot model this).
CREATE UNIQUE INDEX "api_keys_single_root_key" ON "api_keys"("is_root") WHERE "is_root";

-- CreateIndex
CREATE INDEX "api_keys_principal_idx" ON "api_keys"("principal");

-- CreateIndex
CREATE INDEX "api_keys_created_at_id_idx" ON "api_keys"("created_at", "id");

-- CreateIndex
CREATE INDEX "log_entries_timestamp_id_idx" ON "log_entries"("timestamp" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "log_entries_actor_id_timestamp_id_idx" ON "log_entries"("actor_id", "timestamp" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "log_entries_event_timestamp_id_idx" ON "log_entries"("event", "timestamp" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "log_entries_search_idx" ON "log_entries" USING GIN ("search");

-- CreateIndex
CREATE INDEX "exports_status_heartbeat_at_idx" ON "exports"("status", "heartbeat_at");

-- CreateIndex
CREATE INDEX "exports_key_id_status_idx" ON "exports"("key_id", "status");

-- The single row every instance reads to learn whether what it cached is stale.
INSERT INTO "state_versions" ("id") VALUES (1);
