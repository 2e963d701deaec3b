-- CreateTable
CREATE TABLE "export_chunks" (
    "export_id" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "export_chunks_pkey" PRIMARY KEY ("export_id","n")
);

-- Out of line and uncompressed: no compression work while an export is written or read.
ALTER TABLE "export_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;

