// What the operator's model pickers and the Models & pricing page read: GET /api/admin/models lists every known model
// (catalog, channels, prices, groups) with where it appears; a channel test names the channel's models without a
// price (a test passes, users get "does not exist"); GET /api/user/models names the groups of the person's keys so a
// model of another group gets no curl example (docs/api.md, "Model pickers", "Channels: testing", "Models & pricing").
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { callApi, signedIn } from "../helpers/user-api";

let gateway: Gateway;

before(async () => {
  gateway = await startGateway({ portal: true });
});
after(stopAllGateways);

type Known = { id: string; kind: string; inCatalog: boolean; channels: { id: string; name: string }[]; groups: string[]; priced: boolean };

describe("known models and unpriced channel models", () => {
  test("GET /api/admin/models lists the catalog's models and a channel's own, with channels, groups and prices", async () => {
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "Picker upstream",
      type: "simulator",
      models: ["std-5.5", "acme-chat-1"],
    });
    const known = (await gateway.admin("GET", "/api/admin/models")).data as Known[];
    const byId = new Map(known.map((model) => [model.id, model]));
    const builtIn = byId.get("std-tts-1")!;
    assert.deepEqual([builtIn.inCatalog, builtIn.kind, builtIn.priced], [true, "speech", true]);
    assert.ok(builtIn.groups.includes("default"));
    const own = byId.get("acme-chat-1");
    assert.ok(own, "a channel's model that no catalog, price or group names is listed");
    assert.deepEqual(own.channels, [{ id: channel.id, name: "Picker upstream" }]);
    assert.deepEqual([own.inCatalog, own.priced, own.groups], [false, false, []]);
    assert.ok(byId.get("std-5.5")!.channels.some((entry) => entry.id === channel.id));
    const user = await createUserWithKey(gateway);
    const refused = await callApi(gateway.url, "GET", "/api/admin/models", { headers: { authorization: `Bearer ${user.key}` } });
    assert.equal(refused.status, 403);
  });

  test("a channel test names the models without a price, and none once they have one", async () => {
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "Unpriced upstream",
      type: "simulator",
      models: ["std-5.5", "acme-unpriced-1", "acme-unpriced-2"],
      status: "disabled",
    });
    const tested = await gateway.admin("POST", `/api/admin/channels/${channel.id}/test`);
    assert.equal(tested.ok, true, JSON.stringify(tested));
    assert.deepEqual(tested.unpriced, ["acme-unpriced-1", "acme-unpriced-2"]);
    // Testing the unpriced model itself: whatever the upstream says, the warning is there.
    const one = await gateway.admin("POST", `/api/admin/channels/${channel.id}/test`, { model: "acme-unpriced-1" });
    assert.deepEqual(one.unpriced, ["acme-unpriced-1", "acme-unpriced-2"]);
    await gateway.admin("POST", "/api/admin/prices", { model: "acme-unpriced-1", textInput: 1, textOutput: 2 });
    await gateway.admin("POST", "/api/admin/prices", { model: "acme-unpriced-2", textInput: 1, textOutput: 2 });
    const priced = await gateway.admin("POST", `/api/admin/channels/${channel.id}/test`);
    assert.deepEqual(priced.unpriced, []);
  });

  test("GET /api/user/models says which groups offer each model and which groups the person's keys are in", async () => {
    await gateway.admin("POST", "/api/admin/prices", { model: "vip-model", textInput: 3, textOutput: 6 });
    await gateway.admin("POST", "/api/admin/prices", { model: "hidden-model", textInput: 3, textOutput: 6 });
    await gateway.admin("POST", "/api/admin/groups", { name: "vip", models: ["vip-model"] });
    await gateway.admin("POST", "/api/admin/groups", { name: "hidden", models: ["hidden-model"] });
    await gateway.admin("POST", "/api/admin/settings", { userGroups: ["default", "vip"] });
    const member = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, member.email, member.password);
    const first = (await browser.call("GET", "/api/user/models")).body;
    assert.deepEqual(first.groups, ["default", "vip"]);
    assert.deepEqual(first.keyGroups, ["default"]);
    assert.deepEqual(first.data.find((model: { id: string }) => model.id === "vip-model").groups, ["vip"]);
    assert.equal(
      first.data.some((model: { id: string }) => model.id === "hidden-model"),
      false,
      "a group neither open nor of a key",
    );
    // A key the operator made in a group not open to users: its models are listed, with that group.
    await gateway.admin("POST", "/api/admin/keys", { userId: member.userId, group: "hidden", unlimited: true });
    const second = (await browser.call("GET", "/api/user/models")).body;
    assert.deepEqual(second.keyGroups, ["default", "hidden"]);
    assert.deepEqual(second.data.find((model: { id: string }) => model.id === "hidden-model").groups, ["hidden"]);
    // The playground's own key does not count as one of theirs.
    assert.equal((await browser.call("POST", "/api/user/playground/renew", { group: "vip" })).status, 200);
    assert.deepEqual((await browser.call("GET", "/api/user/models")).body.keyGroups, ["default", "hidden"]);
    await gateway.admin("POST", "/api/admin/settings", { userGroups: ["default"] });
  });
});
