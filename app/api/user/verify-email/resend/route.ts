// POST /api/user/verify-email/resend (handler: lib/account-api/verify-email.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { resendVerification } from "@/lib/account-api/verify-email";

export const POST = nextRoute(resendVerification);
