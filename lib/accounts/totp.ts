// TOTP (RFC 6238) for the second factor, on otplib v13's functional API. Parameters are the ones every authenticator
// app supports: SHA-1, 6 digits, 30-second period. The secret is Base32 (20 random bytes); callers store it encrypted
// (lib/platform/crypto.ts `encrypt`) and store the last accepted time step to refuse a replayed code (SECURITY.md: TOTP lockout, no replay).
import { generate, generateSecret, generateURI, verify } from "otplib";
import QRCode from "qrcode";

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A new Base32 secret of 20 random bytes (160 bits, the RFC 4226 recommendation). */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://totp/...` URL an authenticator app scans. */
export function otpauthUrl(secret: string, accountEmail: string, issuer = "Model Gateway"): string {
  return generateURI({ issuer, label: accountEmail, secret, algorithm: "sha1", digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS });
}

/** A PNG data URL of the QR code for `url`, ready for an <img src>. */
export function qrCodeDataUrl(url: string): Promise<string> {
  return QRCode.toDataURL(url, { type: "image/png", errorCorrectionLevel: "M", margin: 2, width: 240 });
}

/** The RFC 6238 time step for a Unix time in seconds. */
export function totpTimeStep(epochSeconds = nowSeconds()): number {
  return Math.floor(epochSeconds / TOTP_PERIOD_SECONDS);
}

/** The code an authenticator would show at `epochSeconds` (Unix seconds, default now). For tests and the simulator. */
export function currentTotp(secret: string, epochSeconds = nowSeconds()): Promise<string> {
  return generate({ secret, epoch: epochSeconds, period: TOTP_PERIOD_SECONDS, digits: TOTP_DIGITS, algorithm: "sha1" });
}

export type TotpResult = { ok: true; timeStep: number } | { ok: false };

/**
 * Checks a code typed by the user.
 * - Accepts the current time step and one step either side (±30 s of clock skew).
 * - Rejects any step ≤ `afterTimeStep`: pass the step stored from the last accepted code, then store the returned
 *   `timeStep`, so a code (or an older one) is accepted once.
 * - Spaces are ignored ("123 456" as apps display it); anything else that is not exactly 6 digits is rejected
 *   without throwing, since it is user input.
 * `epoch` is Unix time in seconds (default now), as in otplib.
 */
export async function verifyTotp(
  secret: string,
  code: unknown,
  options: { afterTimeStep?: number | null; epoch?: number } = {},
): Promise<TotpResult> {
  if (typeof code !== "string") return { ok: false };
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return { ok: false };

  const epoch = options.epoch ?? nowSeconds();
  const latestStep = totpTimeStep(epoch) + 1;
  const after = options.afterTimeStep;
  const afterTimeStep = typeof after === "number" && Number.isFinite(after) && after >= 0 ? Math.floor(after) : undefined;
  // otplib throws when afterTimeStep is past the newest step it would check; no code can pass then anyway.
  if (afterTimeStep !== undefined && afterTimeStep >= latestStep) return { ok: false };

  const result = await verify({
    secret,
    token,
    epoch,
    period: TOTP_PERIOD_SECONDS,
    digits: TOTP_DIGITS,
    algorithm: "sha1",
    // A tolerance of one period checks exactly the steps floor((epoch ± 30) / 30): previous, current, next.
    epochTolerance: TOTP_PERIOD_SECONDS,
    afterTimeStep,
  });
  // otplib's functional verify is typed for TOTP and HOTP together; only the TOTP result carries timeStep.
  return result.valid && "timeStep" in result ? { ok: true, timeStep: result.timeStep } : { ok: false };
}
