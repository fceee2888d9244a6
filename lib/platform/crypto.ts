// Hashing and encryption of everything secret (docs/decisions/0004-secrets-hashed-or-encrypted.md).
// Keys, codes, reset tokens and backup codes: SHA-256, shown once. Channel keys and TOTP secrets: AES-256-GCM.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

/** A random string over an unambiguous alphabet (rejection sampling, so every character is equally likely). */
export function randomToken(length: number, alphabet = ALPHABET): string {
  const out: string[] = [];
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out.push(alphabet[byte % alphabet.length]!);
      if (out.length === length) break;
    }
  }
  return out.join("");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function keyFrom(secret: string, purpose: string): Buffer {
  return createHmac("sha256", secret).update(`gateway:${purpose}`).digest();
}

/** Derives a purpose-bound sub-key, e.g. for next-auth's JWT secret. */
export function deriveSecret(secret: string, purpose: string): string {
  return keyFrom(secret, purpose).toString("hex");
}

/** AES-256-GCM; output `v1.<iv>.<tag>.<ciphertext>` in base64url. Empty stays empty. */
export function encrypt(plain: string, secret: string): string {
  if (!plain) return "";
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFrom(secret, "encryption"), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), body].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

export function decrypt(sealed: string, secret: string): string {
  if (!sealed) return "";
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("Unreadable encrypted value");
  const decipher = createDecipheriv("aes-256-gcm", keyFrom(secret, "encryption"), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
