// POST /api/user/verify-email (handler: lib/user/verify-email.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { verifyEmail } from "@/lib/user/verify-email";

export const POST = nextRoute(verifyEmail);
