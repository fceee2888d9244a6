// Gemini's API (/v1beta), through the same route table as the production server (lib/server/routes.ts), as app/v1.
import { dispatchThroughTable } from "@/lib/server/next-route";

export const GET = dispatchThroughTable;
export const POST = dispatchThroughTable;
export const OPTIONS = dispatchThroughTable;
