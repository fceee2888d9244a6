// Which tests need a built portal (next build), so that `npm test -- tests/unit/x.test.ts` does not build it for
// nothing and a test that serves portal pages never runs against a stale build.
//
// The rule: a test file needs the portal when it is under tests/e2e/ (the browser tests) or listed in PORTAL_TESTS
// below (tests that start the gateway with the portal on, to reach its pages or next-auth's sign-in). scripts/test.mjs
// builds the portal, when its sources changed, only for a run that holds such a file, and checks every file it runs
// against what the file really does (`portalUse`): one that starts the portal without being listed, or is listed
// without starting it, stops the run with a message that says which and why.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const PORTAL_FOLDERS = ["tests/e2e/"];

export const PORTAL_TESTS = [
  "tests/clients/error-shapes.test.ts",
  "tests/integration/account-notices.test.ts",
  "tests/integration/announcements.test.ts",
  "tests/integration/key-budgets.test.ts",
  "tests/integration/model-pickers.test.ts",
  "tests/integration/accounts-reset.test.ts",
  "tests/integration/accounts-self-service.test.ts",
  "tests/integration/accounts-sign-in.test.ts",
  "tests/integration/accounts-throttling.test.ts",
  "tests/integration/accounts-topup.test.ts",
  "tests/integration/input-validation-accounts.test.ts",
  "tests/integration/input-validation-fuzz.test.ts",
  "tests/integration/input-validation-images.test.ts",
  "tests/integration/input-validation-responses.test.ts",
  "tests/integration/input-validation-storage.test.ts",
  "tests/integration/input-validation-text.test.ts",
  "tests/integration/key-controls-migration.test.ts",
  "tests/integration/key-controls.test.ts",
  "tests/integration/key-models.test.ts",
  "tests/integration/object-level.test.ts",
  "tests/integration/operator-api.test.ts",
  "tests/integration/operator-tools.test.ts",
  "tests/integration/playground-session.test.ts",
  "tests/integration/public-body-limits.test.ts",
  "tests/integration/scale-out.test.ts",
  "tests/integration/sessions-and-email.test.ts",
  "tests/integration/trusted-proxies.test.ts",
  "tests/integration/user-keys-edit.test.ts",
  "tests/integration/user-models.test.ts",
  "tests/integration/web-security.test.ts",
];

/** The path as the lists spell it: relative to the repository, with forward slashes. */
export function testPath(file) {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join("/");
}

/** Whether the rule above says `file` needs a built portal. */
export function needsPortal(file) {
  const name = testPath(file);
  return PORTAL_FOLDERS.some((folder) => name.startsWith(folder)) || PORTAL_TESTS.includes(name);
}

// What starts the portal: the gateway helper's `portal: true` (tests/helpers/gateway.ts), or the browser helper.
const PORTAL_ON = /\bportal:\s*true\b/;
const BROWSER_HELPER = /from\s+["'][./]*helpers\/browser["']/;
const RELATIVE_IMPORT = /(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\s+["'](\.{1,2}\/[^"']+)["']/g;

/**
 * Why `file` needs the portal, found in its source or in a test helper it imports (directly or through another
 * helper): e.g. "portal: true in tests/helpers/accounts-setup.ts". Null when nothing in it starts the portal.
 */
export function portalUse(file, seen = new Set()) {
  const name = testPath(file);
  if (seen.has(name) || !existsSync(name)) return null;
  seen.add(name);
  const source = readFileSync(name, "utf8");
  if (PORTAL_ON.test(source)) return `portal: true in ${name}`;
  if (BROWSER_HELPER.test(source)) return `the browser helper (tests/helpers/browser.ts) in ${name}`;
  for (const match of source.matchAll(RELATIVE_IMPORT)) {
    const target = path.join(path.dirname(name), match[1] ?? match[2]);
    // Test helpers are TypeScript; the runner's own modules (scripts/*.mjs) are not followed.
    const candidates = [target, `${target}.ts`, path.join(target, "index.ts")].filter((candidate) => candidate.endsWith(".ts"));
    const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
    const reason = found && !found.endsWith(".test.ts") ? portalUse(found, seen) : null;
    if (reason) return reason;
  }
  return null;
}

/**
 * The files among `files` whose use of the portal disagrees with the rule, each with a message that says what to do;
 * empty when they all agree.
 */
export function portalRuleProblems(files) {
  const problems = [];
  for (const file of files) {
    const name = testPath(file);
    const use = portalUse(name);
    const listed = needsPortal(name);
    if (use && !listed) {
      problems.push(
        `${name} starts the portal (${use}) but is not marked as needing it: add it to PORTAL_TESTS in ` +
          "scripts/portal-tests.mjs, so that npm test builds the portal before it runs instead of testing a stale build.",
      );
    } else if (!use && listed && !PORTAL_FOLDERS.some((folder) => name.startsWith(folder))) {
      problems.push(
        `${name} is listed in PORTAL_TESTS (scripts/portal-tests.mjs) but starts no portal: remove it from the list, ` +
          "so that running it does not build the portal for nothing.",
      );
    }
  }
  return problems;
}
