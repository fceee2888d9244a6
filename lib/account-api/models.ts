// GET /api/user/models: the models a signed-in person may use (the union of the groups open to them: for a user the
// operator's "user.groups", for an admin every group) with what the portal's Models & pricing page and the
// playground's model pickers need: the endpoints that serve each, its context window, its prices per 1M tokens (per
// 1M characters for speech, per 1M seconds of audio for transcription), its long-context tier, and for image models
// the cost of the common sizes and qualities, computed with the same functions the gateway bills with
// (lib/money/image-tokens.ts). Models without a price are left out: they cannot be called. The groups of the person's
// own keys count too (an operator may give someone a key in a group not open to everyone), and `keyGroups` names them,
// so the page offers a curl example only for a model one of their keys can call (docs/api.md, "Models & pricing").
import { json } from "@/lib/platform/http/json";
import { groupOf, priceOf } from "@/lib/money/prices";
import { catalogEntryOrGeneric, type ModelKind } from "@/lib/catalog";
import { allowedGroups } from "@/lib/accounts/groups";
import { costMicros, imageOutputTokens, type ImageQuality } from "@/lib/money/image-tokens";
import { modelSources } from "@/lib/portal/model-sources";
import { listOwnKeys } from "@/lib/keys/store";
import { sessionRoute } from "./route";

const COMMON_SIZES = ["1024x1024", "1024x1536", "1536x1024", "2048x2048", "3840x2160"] as const;
const QUALITIES: ImageQuality[] = ["low", "medium", "high"];
/** The order of the list: by kind, then by name. */
const KIND_ORDER: ModelKind[] = ["image", "text", "embedding", "speech", "transcription"];

export const listUserModels = sessionRoute(async (_request, _params, { user }) => {
  const groups = await allowedGroups(user);
  // The person's own keys, not the playground's (it is the portal's, made in a group open to them).
  const keyGroups = [...new Set((await listOwnKeys(user.id)).filter((key) => key.purpose !== "playground").map((key) => key.group))].sort();
  const byModel = new Map<string, string[]>();
  for (const name of [...new Set([...groups, ...keyGroups])].sort()) {
    const group = await groupOf(name);
    for (const model of group?.models ?? []) byModel.set(model, [...(byModel.get(model) ?? []), name]);
  }
  const sources = await modelSources();
  const data = [];
  for (const [model, inGroups] of byModel) {
    const price = await priceOf(model);
    if (!price) continue;
    const entry = await catalogEntryOrGeneric(model);
    data.push({
      id: entry.id,
      displayName: entry.displayName,
      kind: entry.kind,
      endpoints: entry.endpoints,
      contextWindow: entry.contextWindow,
      maxOutputTokens: entry.maxOutputTokens,
      groups: inGroups,
      source: sources[model] ?? null,
      price: {
        textInput: price.textInput,
        textOutput: price.textOutput,
        imageInput: price.imageInput,
        imageOutput: price.imageOutput,
        characterInput: price.characterInput,
        audioInputSecond: price.audioInputSecond,
        cacheRead: price.cacheRead,
        cacheWrite: price.cacheWrite,
        tier: price.tier,
        toolPrices: price.toolPrices,
      },
      // Micro-USD per image, output tokens only (the prompt's few tokens come on top).
      imagePrices:
        entry.kind === "image"
          ? COMMON_SIZES.map((size) => {
              const [width, height] = size.split("x").map(Number) as [number, number];
              return {
                size,
                ...Object.fromEntries(
                  QUALITIES.map((quality) => [quality, costMicros(imageOutputTokens(width, height, quality), price.imageOutput)]),
                ),
              };
            })
          : null,
    });
  }
  data.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.id.localeCompare(b.id));
  return json({ data, groups, keyGroups });
});
