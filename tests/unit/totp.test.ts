import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { currentTotp, newTotpSecret, otpauthUrl, qrCodeDataUrl, totpTimeStep, verifyTotp } from "@/lib/accounts/totp";

// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890" (20 bytes), here in Base32.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const EPOCH = 1_700_000_015; // 15 s into time step 56 666 667

test("currentTotp matches the RFC 6238 test vectors (last 6 of the 8 published digits)", async () => {
  const vectors: [number, string][] = [
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
  ];
  for (const [epoch, code] of vectors) assert.equal(await currentTotp(RFC_SECRET, epoch), code, `epoch ${epoch}`);
});

test("newTotpSecret returns 160 random bits in Base32", () => {
  const first = newTotpSecret();
  assert.match(first, /^[A-Z2-7]{32}$/);
  assert.notEqual(first, newTotpSecret());
});

test("otpauthUrl names the issuer and account and carries the secret", () => {
  const url = new URL(otpauthUrl(RFC_SECRET, "alice+2fa@example.com"));
  assert.equal(url.protocol, "otpauth:");
  assert.equal(url.host, "totp");
  assert.equal(decodeURIComponent(url.pathname), "/Model Gateway:alice+2fa@example.com");
  assert.equal(url.searchParams.get("secret"), RFC_SECRET);
  assert.equal(url.searchParams.get("issuer"), "Model Gateway");
  const custom = new URL(otpauthUrl(RFC_SECRET, "bob@example.com", "Acme AI"));
  assert.equal(custom.searchParams.get("issuer"), "Acme AI");
});

test("qrCodeDataUrl returns a PNG data URL of a real image", async () => {
  const dataUrl = await qrCodeDataUrl(otpauthUrl(newTotpSecret(), "alice@example.com"));
  assert.match(dataUrl, /^data:image\/png;base64,/);
  const png = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const metadata = await sharp(png).metadata();
  assert.equal(metadata.format, "png");
  assert.equal(metadata.width, 240);
  assert.equal(metadata.height, 240);
});

test("verifyTotp accepts the current step and one step of skew either side, not two", async () => {
  const step = totpTimeStep(EPOCH);
  assert.equal(step, Math.floor(EPOCH / 30));
  for (const offset of [-1, 0, 1]) {
    const code = await currentTotp(RFC_SECRET, EPOCH + offset * 30);
    assert.deepEqual(await verifyTotp(RFC_SECRET, code, { epoch: EPOCH }), { ok: true, timeStep: step + offset }, `offset ${offset}`);
  }
  for (const offset of [-3, -2, 2, 3]) {
    const code = await currentTotp(RFC_SECRET, EPOCH + offset * 30);
    assert.deepEqual(await verifyTotp(RFC_SECRET, code, { epoch: EPOCH }), { ok: false }, `offset ${offset}`);
  }
});

test("verifyTotp uses the real clock by default", async () => {
  const secret = newTotpSecret();
  const result = await verifyTotp(secret, await currentTotp(secret));
  assert.equal(result.ok, true);
  if (result.ok) assert.ok(Math.abs(result.timeStep - totpTimeStep()) <= 1);
});

test("verifyTotp refuses a replayed code and any code from an earlier step", async () => {
  const step = totpTimeStep(EPOCH);
  const code = await currentTotp(RFC_SECRET, EPOCH);
  const first = await verifyTotp(RFC_SECRET, code, { epoch: EPOCH, afterTimeStep: null });
  assert.deepEqual(first, { ok: true, timeStep: step });
  // The caller stores the accepted step; the same code is refused even a few seconds later, within its step.
  assert.deepEqual(await verifyTotp(RFC_SECRET, code, { epoch: EPOCH + 5, afterTimeStep: step }), { ok: false });
  // The previous step's code is otherwise within the skew window, but older than the stored step.
  const previous = await currentTotp(RFC_SECRET, EPOCH - 30);
  assert.deepEqual(await verifyTotp(RFC_SECRET, previous, { epoch: EPOCH, afterTimeStep: step }), { ok: false });
  // The next step's code is still accepted.
  const next = await currentTotp(RFC_SECRET, EPOCH + 30);
  assert.deepEqual(await verifyTotp(RFC_SECRET, next, { epoch: EPOCH + 30, afterTimeStep: step }), { ok: true, timeStep: step + 1 });
  // A stored step older than the window changes nothing.
  assert.deepEqual(await verifyTotp(RFC_SECRET, code, { epoch: EPOCH, afterTimeStep: step - 5 }), { ok: true, timeStep: step });
});

test("verifyTotp answers ok:false, without throwing, when the stored step is ahead of the clock", async () => {
  const step = totpTimeStep(EPOCH);
  const code = await currentTotp(RFC_SECRET, EPOCH);
  // otplib itself throws for these; a server clock set back must not turn into a 500.
  assert.deepEqual(await verifyTotp(RFC_SECRET, code, { epoch: EPOCH, afterTimeStep: step + 1 }), { ok: false });
  assert.deepEqual(await verifyTotp(RFC_SECRET, code, { epoch: EPOCH, afterTimeStep: step + 1000 }), { ok: false });
  assert.deepEqual(await verifyTotp(RFC_SECRET, code, { epoch: EPOCH, afterTimeStep: -1 }), { ok: true, timeStep: step });
});

test("verifyTotp rejects anything but 6 digits without throwing, and ignores spaces", async () => {
  const code = await currentTotp(RFC_SECRET, EPOCH);
  const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
  assert.deepEqual(await verifyTotp(RFC_SECRET, spaced, { epoch: EPOCH }), { ok: true, timeStep: totpTimeStep(EPOCH) });
  assert.deepEqual(await verifyTotp(RFC_SECRET, ` ${code}\n`, { epoch: EPOCH }), { ok: true, timeStep: totpTimeStep(EPOCH) });
  const bad: unknown[] = [
    "",
    "12345",
    "1234567",
    "abcdef",
    "12345a",
    "١٢٣٤٥٦",
    `${code}0`,
    "-12345",
    "1e5000",
    null,
    undefined,
    Number(code),
    {},
    ["123456"],
  ];
  for (const input of bad) {
    assert.deepEqual(await verifyTotp(RFC_SECRET, input, { epoch: EPOCH }), { ok: false }, JSON.stringify(input));
  }
  // A right-length wrong code
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
  assert.deepEqual(await verifyTotp(RFC_SECRET, wrong, { epoch: EPOCH }), { ok: false });
});
