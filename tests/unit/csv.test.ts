// CSV export: amounts are signed numbers from the user's side, never text with a minus;
// the formula guard applies to text cells only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { signedUsd, toCsv } from "@/lib/portal/csv";

type Row = { kind: string; cost: number; key: string };
const columns = [
  { header: "kind", value: (row: Row) => row.kind },
  { header: "key_name", value: (row: Row) => row.key },
  { header: "amount_usd", value: (row: Row) => signedUsd(-row.cost) },
];

test("a top-up is +5, a request -0.0063, both plain numbers; text that looks like a formula is guarded", () => {
  const csv = toCsv<Row>(
    [
      { kind: "topup", cost: -5_000_000, key: "" },
      { kind: "request", cost: 6_300, key: '=HYPERLINK("x")' },
      { kind: "request", cost: 0, key: "-rm" },
    ],
    columns,
  );
  assert.equal(csv, 'kind,key_name,amount_usd\r\ntopup,,5\r\nrequest,"\'=HYPERLINK(""x"")",-0.0063\r\nrequest,\'-rm,0\r\n');
});

test("signedUsd keeps six decimals and never writes -0", () => {
  assert.equal(signedUsd(-1), -0.000001);
  assert.equal(signedUsd(1_234_567_891), 1234.567891);
  assert.ok(Object.is(signedUsd(-0), 0));
});
