-- Log streams (docs/log-streams.md): where the sealed log is pushed, how far each stream got,
-- and which instance delivers it (a lease). Secrets and tokens are stored encrypted.
CREATE TABLE "log_streams" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "destination_type" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "splunk_index" TEXT,
    "sourcetype" TEXT,
    "credential" TEXT NOT NULL,
    "previous_credential" TEXT,
    "previous_credential_expires_at" TIMESTAMPTZ(3),
    "filter" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "batch_size" INTEGER NOT NULL,
    "delivered_through_seq" BIGINT NOT NULL,
    "progress_version" INTEGER NOT NULL DEFAULT 0,
    "last_delivery_at" TIMESTAMPTZ(3),
    "last_error" JSONB,
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "pending_to_seq" BIGINT,
    "range_start_seq" BIGINT NOT NULL,
    "failing_since" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "log_streams_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "log_streams_name_key" ON "log_streams"("name");
CREATE INDEX "log_streams_created_at_id_idx" ON "log_streams"("created_at", "id");

CREATE TABLE "log_stream_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "stream_id" TEXT NOT NULL,
    "from_seq" BIGINT NOT NULL,
    "to_seq" BIGINT NOT NULL,
    "entries" INTEGER NOT NULL,
    "attempt" INTEGER NOT NULL,
    "http_status" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "error" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "log_stream_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "log_stream_deliveries_stream_id_fkey" FOREIGN KEY ("stream_id") REFERENCES "log_streams"("id") ON DELETE CASCADE
);
CREATE INDEX "log_stream_deliveries_stream_id_id_idx" ON "log_stream_deliveries"("stream_id", "id");
