// Every account API call (and the playground's /api/user/playground/v1/…), through the same route table the production
// server uses (lib/server/routes.ts).
import { dispatchThroughTable } from "@/lib/server/next-route";

export const GET = dispatchThroughTable;
export const POST = dispatchThroughTable;
export const PATCH = dispatchThroughTable;
export const DELETE = dispatchThroughTable;
