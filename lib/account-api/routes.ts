// The account API's routes (/api/user/*), merged into lib/server/routes.ts. Handlers: lib/account-api/handlers.ts (sign-up,
// profile, keys, usage, topup, password), two-factor.ts (2FA) and reset.ts (password reset).
import type { RouteHandler } from "@/lib/server/routes";
import * as user from "./handlers";
import * as twoFactor from "./two-factor";
import * as reset from "./reset";
import * as sessions from "./sessions";
import * as verify from "./verify-email";
import * as playground from "./playground";
import { listUserModels } from "./models";

export const userRoutes: [method: string, path: string, handler: RouteHandler][] = [
  ["POST", "/api/user/signup", user.signup],
  ["GET", "/api/user/self", user.self],
  ["POST", "/api/user/password", user.changePassword],
  ["POST", "/api/user/topup", user.topup],
  ["GET", "/api/user/keys", user.listKeys],
  ["POST", "/api/user/keys", user.createKey],
  ["DELETE", "/api/user/keys", user.deleteKeyByQuery],
  ["DELETE", "/api/user/keys/{id}", user.deleteKey],
  ["PATCH", "/api/user/keys/{id}", user.updateOwnKey],
  ["GET", "/api/user/usage", user.usage],
  ["POST", "/api/user/2fa/setup", twoFactor.setupTwoFactor],
  ["POST", "/api/user/2fa/enable", twoFactor.enableTwoFactor],
  ["POST", "/api/user/2fa/disable", twoFactor.disableTwoFactor],
  ["POST", "/api/user/reset/request", reset.requestReset],
  ["POST", "/api/user/reset", reset.resetPassword],
  ["GET", "/api/user/sessions", sessions.listSessions],
  ["POST", "/api/user/sessions/revoke-all", sessions.revokeAllSessions],
  ["DELETE", "/api/user/sessions/{id}", sessions.deleteSession],
  ["POST", "/api/user/verify-email", verify.verifyEmail],
  ["POST", "/api/user/verify-email/resend", verify.resendVerification],
  ["GET", "/api/user/models", listUserModels],
  ["GET", "/api/user/playground", playground.playgroundKey],
  ["POST", "/api/user/playground/renew", playground.renewPlayground],
];
