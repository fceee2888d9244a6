-- AlterTable
ALTER TABLE "ModelPrice" ADD COLUMN     "modifiers" JSONB NOT NULL DEFAULT '{}';

