-- AlterTable
ALTER TABLE "ModelPrice" ADD COLUMN "characterInput" REAL NOT NULL DEFAULT 0;
ALTER TABLE "ModelPrice" ADD COLUMN "audioInputSecond" REAL NOT NULL DEFAULT 0;
