// The route definitions (lib/platform/http/route-definition.ts, listed in lib/server/routes.ts) are the one place an
// endpoint is declared: each has request and answer schemas and an entry in /openapi.json, the route files under app/
// reach every one of them through the table, no method and path is declared twice, and the answer check that the
// integration tests turn on (GATEWAY_CHECK_ANSWERS=1) refuses an answer off its schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { buildRouteTable, routeDefinitions } from "@/lib/server/routes";
import { openApiDocument } from "@/lib/server/openapi";
import { defineRoute, type RouteDefinition } from "@/lib/platform/http/route-definition";
import { json } from "@/lib/platform/http/json";
import { errorResponse, GatewayError } from "@/lib/platform/errors";

const WRITES = new Set(["POST", "PATCH", "PUT"]);

test("every route declares its request and a success answer as zod schemas", () => {
  assert.ok(routeDefinitions.length > 60, `${routeDefinitions.length} routes`);
  for (const route of routeDefinitions) {
    const name = `${route.method} ${route.path}`;
    assert.equal(typeof route.handler, "function", name);
    assert.ok(route.summary.length > 0, `${name}: a summary`);
    assert.equal(typeof route.request, "object", `${name}: a request`);
    for (const schema of [route.request.body, route.request.query].filter(Boolean))
      assert.ok(schema instanceof z.ZodType, `${name}: request schemas are zod`);
    if (WRITES.has(route.method)) assert.ok(route.request.body || route.request.multipart, `${name}: a write declares its body`);
    const statuses = Object.keys(route.response).map(Number);
    assert.ok(
      statuses.some((status) => status >= 200 && status < 300),
      `${name}: a success answer`,
    );
    for (const schema of Object.values(route.response)) assert.ok(schema instanceof z.ZodType, `${name}: answer schemas are zod`);
  }
});

test("no method and path is declared twice", () => {
  const seen = new Set<string>();
  for (const route of routeDefinitions) {
    const key = `${route.method} ${route.path}`;
    assert.ok(!seen.has(key), `${key} is declared twice`);
    seen.add(key);
  }
});

test("/openapi.json has an operation for every route, with its schemas, and every reference resolves", () => {
  const document = openApiDocument("http://localhost:3000") as {
    openapi: string;
    paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown; operationId: string }>>;
    components: { schemas: Record<string, unknown> };
  };
  assert.equal(document.openapi, "3.1.0");
  const operationIds = new Set<string>();
  for (const route of routeDefinitions) {
    const operation = document.paths[route.path]?.[route.method.toLowerCase()];
    assert.ok(operation, `${route.method} ${route.path} is in the document`);
    for (const status of Object.keys(route.response)) assert.ok(operation.responses[status], `${route.method} ${route.path}: ${status}`);
    if (route.request.body || route.request.multipart) assert.ok(operation.requestBody, `${route.method} ${route.path}: its body`);
    assert.ok(!operationIds.has(operation.operationId), `operationId ${operation.operationId} is unique`);
    operationIds.add(operation.operationId);
  }
  const text = JSON.stringify(document);
  for (const match of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
    assert.ok(document.components.schemas[match[1]!], `reference ${match[1]} resolves`);
  // JSON Schema 2020-12 inside OpenAPI 3.1: no draft marker per schema, no zod internals.
  assert.doesNotMatch(text, /"\$schema"/);
  assert.doesNotMatch(text, /"~standard"|"_zod"/);
});

/** app/**\/route.ts as URL paths: `[id]` becomes `{id}`, a catch-all `[...path]` becomes a prefix ending in "/". */
function appRoutes(): { file: string; path: string; catchAll: boolean; methods: string[] }[] {
  const found: { file: string; path: string; catchAll: boolean; methods: string[] }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const segments = path.relative("app", dir).split(path.sep);
        const catchAll = segments.at(-1)?.startsWith("[...") ?? false;
        const kept = catchAll ? segments.slice(0, -1) : segments;
        const urlPath = `/${kept.map((segment) => segment.replace(/^\[(\w+)\]$/, "{$1}")).join("/")}${catchAll ? "/" : ""}`;
        const source = readFileSync(full, "utf8");
        const methods = [...source.matchAll(/export (?:const|async function) (GET|POST|PUT|PATCH|DELETE|OPTIONS)\b/g)].map(
          (match) => match[1]!,
        );
        for (const match of source.matchAll(/export \{([^}]*)\}/g))
          for (const name of match[1]!.matchAll(/as (GET|POST|PUT|PATCH|DELETE)\b/g)) methods.push(name[1]!);
        found.push({ file: full, path: urlPath, catchAll, methods });
      }
    }
  };
  walk("app");
  return found;
}

// next-auth's own routes (sign-in, callbacks) are Next.js's, not the table's.
const NOT_THE_TABLES = ["/api/auth/"];

test("every route file under app/ is served by the table, and every route in the table by a route file", () => {
  const files = appRoutes().filter((file) => !NOT_THE_TABLES.includes(file.path));
  assert.ok(files.length >= 3);
  for (const file of files) {
    const served = routeDefinitions.filter((route) => (file.catchAll ? route.path.startsWith(file.path) : route.path === file.path));
    assert.ok(served.length > 0, `${file.file} (${file.path}) serves a path of the table`);
    for (const route of served)
      assert.ok(file.methods.includes(route.method), `${file.file} exports ${route.method} for ${route.method} ${route.path}`);
  }
  for (const route of routeDefinitions)
    assert.ok(
      files.some((file) => (file.catchAll ? route.path.startsWith(file.path) : route.path === file.path)),
      `${route.method} ${route.path} has a route file under app/`,
    );
});

const definition = (handler: RouteDefinition["handler"], extra: Partial<RouteDefinition> = {}) =>
  defineRoute({
    method: "GET",
    path: "/api/user/probe/{id}",
    auth: "session",
    dialect: "plain",
    summary: "A route for this test",
    request: {},
    response: { 200: z.object({ id: z.string(), count: z.number().int() }) },
    handler,
    ...extra,
  });

async function call(route: RouteDefinition, checkAnswers: boolean): Promise<Response> {
  const match = buildRouteTable([route], { checkAnswers }).match("GET", "/api/user/probe/a1");
  assert.ok(match && "handler" in match);
  return match.handler(new Request("http://localhost/api/user/probe/a1"), match.params);
}

test("the answer check passes an answer that keeps its schema and refuses one that does not, naming route and path", async () => {
  const good = definition(async (_request, params) => json({ id: params.id, count: 2 }));
  assert.deepEqual(await (await call(good, true)).json(), { id: "a1", count: 2 });

  const offSchema = definition(async (_request, params) => json({ id: params.id, count: "two" }));
  const refused = await call(offSchema, true);
  assert.equal(refused.status, 500);
  const body = (await refused.json()) as { error: { message: string; code: string } };
  assert.equal(body.error.code, "internal_error");
  assert.match(body.error.message, /Answer check failed for GET \/api\/user\/probe\/\{id\} \(\/api\/user\/probe\/a1\)/);
  assert.match(body.error.message, /count/);
  // Off by default: the same route answers as its handler does.
  assert.deepEqual(await (await call(offSchema, false)).json(), { id: "a1", count: "two" });
});

test("the answer check refuses a status the route does not declare and an error in another dialect's shape", async () => {
  const created = definition(async () => json({ id: "x", count: 1 }, 201));
  assert.match(((await (await call(created, true)).json()) as { error: { message: string } }).error.message, /status 201 is not among/);

  const refusal = definition(async () => errorResponse(new GatewayError("not_found", "No such probe"), "plain"));
  const passed = await call(refusal, true);
  assert.equal(passed.status, 404, "an error in the route's dialect passes");

  const wrongDialect = definition(async () => errorResponse(new GatewayError("not_found", "No such probe"), "anthropic"));
  assert.equal((await call(wrongDialect, true)).status, 500, "an Anthropic-shaped error from a plain route is off its schema");

  const notJson = definition(async () => new Response("plain text", { headers: { "content-type": "text/plain" } }));
  assert.equal((await call(notJson, true)).status, 200, "only JSON answers are checked");
});

test("lib/gateway/routes.ts names endpoint folders and nothing else: each /v1 endpoint's handler, body kind, schemas and definition live in its folder", async () => {
  const source = readFileSync("lib/gateway/routes.ts", "utf8");
  const imports = [...source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)].map((match) => ({
    typeOnly: Boolean(match[1]),
    from: match[2]!,
  }));
  const folders = imports.filter((entry) => !entry.typeOnly).map((entry) => entry.from);
  assert.ok(folders.length >= 7, `${folders.length} folders`);
  for (const from of folders) assert.match(from, /^\.\/[a-z-]+\/routes$/, `${from}: only folders' routes.ts are imported`);
  const { gatewayRoutes, playgroundRoutes } = await import("@/lib/gateway/routes");
  let counted = 0;
  for (const from of folders) {
    const folder = (await import(`@/lib/gateway/${from.slice(2)}`)) as { routes: RouteDefinition[]; playgroundRoutes?: RouteDefinition[] };
    for (const route of folder.routes) assert.ok(gatewayRoutes.includes(route as never), `${route.path} is listed`);
    for (const route of folder.playgroundRoutes ?? []) assert.ok(playgroundRoutes.includes(route as never), `${route.path} is listed`);
    counted += folder.routes.length + (folder.playgroundRoutes?.length ?? 0);
  }
  assert.equal(counted, gatewayRoutes.length + playgroundRoutes.length, "every /v1 route comes from a folder");
});
