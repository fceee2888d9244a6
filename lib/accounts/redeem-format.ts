// Redeem codes are shown as GW-XXXXX-XXXXX-XXXXX-XXXXX; people retype them with other case, spaces or dashes.
// The stored hash is of the normalised form, so any of those spellings finds the code.
// (Codes are case-sensitive random strings, so only spaces and dashes are ignored, never case.)
export function normaliseRedeemCode(input: string): string {
  return input.replace(/[\s-]+/g, "").trim();
}
