-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "models" JSONB NOT NULL DEFAULT '[]';

