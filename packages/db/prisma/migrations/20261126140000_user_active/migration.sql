-- A user with `active = false` is denied every decision and its API keys answer 401 until it
-- is reactivated. Existing users stay active.
ALTER TABLE "users" ADD COLUMN "active" BOOLEAN NOT NULL DEFAULT true;

-- The `active=false` filter of the user list, oldest first (few users are inactive).
CREATE INDEX "users_inactive_created_at_id_idx" ON "users"("created_at", "id") WHERE NOT "active";
