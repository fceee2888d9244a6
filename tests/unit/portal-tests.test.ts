// The rule for which tests need a built portal (scripts/portal-tests.mjs) and its check in `npm test`
// (scripts/test.mjs): a test that starts the portal without being marked stops the run with a message that names it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
// @ts-expect-error: a plain JavaScript module of the test runner, without type declarations
import { needsPortal, portalRuleProblems, portalUse, PORTAL_TESTS } from "../../scripts/portal-tests.mjs";

let directory = "";
// Spelled in pieces so that this file does not itself read as one that starts the portal.
const PORTAL_ON = ["portal", "true"].join(": ");
const BROWSER_IMPORT = ["import { openBrowser } from", '"../helpers/browser";'].join(" ");

before(() => {
  directory = mkdtempSync(path.join(tmpdir(), "portal-rule-"));
  mkdirSync(path.join(directory, "helpers"));
  writeFileSync(path.join(directory, "helpers", "setup.ts"), `export const start = () => startGateway({ ${PORTAL_ON} });\n`);
  writeFileSync(path.join(directory, "helpers", "plain.ts"), "export const start = () => startGateway({});\n");
  writeFileSync(path.join(directory, "direct.test.ts"), `test("x", () => startGateway({ ${PORTAL_ON} }));\n`);
  writeFileSync(path.join(directory, "through-helper.test.ts"), 'import { start } from "./helpers/setup";\n');
  writeFileSync(path.join(directory, "browser.test.ts"), `${BROWSER_IMPORT}\n`);
  writeFileSync(path.join(directory, "no-portal.test.ts"), 'import { start } from "./helpers/plain";\n');
});

after(() => rmSync(directory, { recursive: true, force: true }));

const fixture = (name: string) => path.join(directory, name);

function allTestFiles(): string[] {
  return ["tests/unit", "tests/integration", "tests/clients", "tests/e2e"].flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `${folder}/${name}`),
  );
}

test("a file that starts the portal itself, through a helper, or with the browser helper is found; one that does not is not", () => {
  assert.match(portalUse(fixture("direct.test.ts")), /^portal:\strue in .*direct\.test\.ts$/);
  assert.match(portalUse(fixture("through-helper.test.ts")), /^portal:\strue in .*helpers\/setup\.ts$/);
  assert.match(portalUse(fixture("browser.test.ts")), /the browser helper/);
  assert.equal(portalUse(fixture("no-portal.test.ts")), null);
});

test("an unmarked test that starts the portal is a problem that says where to mark it", () => {
  const [problem, ...rest] = portalRuleProblems([fixture("through-helper.test.ts"), fixture("no-portal.test.ts")]);
  assert.equal(rest.length, 0);
  assert.match(problem, /through-helper\.test\.ts starts the portal \(portal:\strue in .*helpers\/setup\.ts\) but is not marked/);
  assert.match(problem, /add it to PORTAL_TESTS in scripts\/portal-tests\.mjs/);
});

test("tests/e2e/ needs the portal by its folder; a unit test does not", () => {
  assert.equal(needsPortal("tests/e2e/anything.test.ts"), true);
  assert.equal(needsPortal("tests/unit/linger.test.ts"), false);
});

test("every test file in the repository agrees with the rule, and every listed file exists", () => {
  const files = allTestFiles();
  assert.deepEqual(portalRuleProblems(files), []);
  for (const listed of PORTAL_TESTS) assert.ok(files.includes(listed), `${listed} is listed in PORTAL_TESTS but does not exist`);
});

test("npm test stops before running anything when a named test starts the portal unmarked", () => {
  const run = spawnSync(process.execPath, ["scripts/test.mjs", fixture("direct.test.ts")], { encoding: "utf8", timeout: 60_000 });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stderr, /direct\.test\.ts starts the portal .* but is not marked as needing it/);
  assert.doesNotMatch(run.stdout, /Running \d+ test file/);
});
