// API key format: "sk-" + 48 characters. Only the SHA-256 is stored; the first 10 characters are the display
// prefix shown in lists, logs and ledger rows (SECURITY.md).
import { randomToken, sha256 } from "@/lib/platform/crypto";

export const KEY_PATTERN = /^sk-[A-Za-z0-9]{20,100}$/;

export function newApiKey(): { key: string; hash: string; prefix: string } {
  const key = `sk-${randomToken(48)}`;
  return { key, hash: sha256(key), prefix: displayPrefix(key) };
}

export function displayPrefix(key: string): string {
  return key.slice(0, 10);
}

export function hashApiKey(key: string): string {
  return sha256(key);
}
