// The route table's lookup (lib/server/routes.ts): routes without parameters are found by one map lookup, the rest
// by the table's patterns in order. Both ways must answer as the table alone did.
import { test } from "node:test";
import assert from "node:assert/strict";
import { matchRoute } from "@/lib/server/routes";
import { gatewayRoutes } from "@/lib/gateway/routes";

const handlerOf = (method: string, path: string) => {
  const match = matchRoute(method, path);
  assert.ok(match && "handler" in match, `${method} ${path} is routed`);
  return match;
};

test("a route without parameters is found with and without a trailing slash, and only for its method", () => {
  for (const { method, path, handler } of gatewayRoutes) {
    if (path.includes("{")) continue;
    assert.equal(handlerOf(method, path).handler, handler, `${method} ${path}`);
    assert.equal(handlerOf(method, `${path}/`).handler, handler, `${method} ${path}/`);
    assert.deepEqual(handlerOf(method, path).params, {});
  }
  assert.deepEqual(matchRoute("GET", "/v1/chat/completions"), { allowed: ["POST"] });
  assert.deepEqual(matchRoute("DELETE", "/v1/models"), { allowed: ["GET"] });
  assert.equal(matchRoute("POST", "/v1/chat/completions//"), null);
  assert.equal(matchRoute("POST", "/v1/chat"), null);
});

test("parameters, preflights and a static route beside a parameter route answer as before", () => {
  assert.deepEqual(handlerOf("GET", "/v1/models/std-5.5").params, { id: "std-5.5" });
  assert.deepEqual(handlerOf("PATCH", "/api/admin/users/a%20b").params, { id: "a b" });
  assert.deepEqual(handlerOf("PATCH", "/api/admin/users/%ZZ").params, { id: "%ZZ" });
  const preflight = handlerOf("OPTIONS", "/v1/messages");
  assert.notEqual(preflight.handler, handlerOf("POST", "/v1/messages").handler);
  // /api/admin/redeem-codes/void is its own route, not a redeem code called "void".
  assert.deepEqual(handlerOf("POST", "/api/admin/redeem-codes/void").params, {});
  assert.deepEqual(handlerOf("POST", "/v1/messages/count_tokens").params, {});
});
