-- Each chain row records the version of the canonical form its hash is computed over: the
-- rows sealed before canonical form v2 are v1; the sealer writes 2 from now on.
ALTER TABLE "log_chain" ADD COLUMN "canonical_version" INTEGER NOT NULL DEFAULT 1;
