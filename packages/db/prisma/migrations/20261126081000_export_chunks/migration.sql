-- CreateTable
CREATE TABLE "export_chunks" (
    "export_id" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "export_chunks_pkey" PRIMARY KEY ("export_id","n")
);

-- Stored out of line, uncompressed: compressing each 1 MiB chunk costs more than it saves here.
ALTER TABLE "export_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;

-- AddForeignKey
ALTER TABLE "export_chunks" ADD CONSTRAINT "export_chunks_export_id_fkey" FOREIGN KEY ("export_id") REFERENCES "exports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
