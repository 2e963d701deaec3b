-- CreateTable
-- UNLOGGED: export files are re-creatable and live a day; they need not burden the WAL, its
-- replicas and backups (half the cost of writing them). A crash of PostgreSQL empties the
-- table: downloads of exports finished before it answer 410, and new exports work as before.
CREATE UNLOGGED TABLE "export_chunks" (
    "export_id" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "export_chunks_pkey" PRIMARY KEY ("export_id","n")
);

-- Out of line and uncompressed: no compression work while an export is written or read.
ALTER TABLE "export_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;

