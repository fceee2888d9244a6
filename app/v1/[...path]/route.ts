// Every /v1 endpoint, through the same route table the production server uses (lib/server/routes.ts); in production
// server.ts answers /v1 itself and Next.js never sees it (docs/decisions/0001-plain-handlers.md).
import { dispatchThroughTable } from "@/lib/server/next-route";

export const GET = dispatchThroughTable;
export const POST = dispatchThroughTable;
export const OPTIONS = dispatchThroughTable;
