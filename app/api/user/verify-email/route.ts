// POST /api/user/verify-email (handler: lib/account-api/verify-email.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { verifyEmail } from "@/lib/account-api/verify-email";

export const POST = nextRoute(verifyEmail);
