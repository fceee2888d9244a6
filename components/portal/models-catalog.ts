// The Models & pricing catalog's search, kind filter and sort, and whether a person's keys can call a model: plain
// functions over GET /api/user/models, so tests/unit/models-catalog.test.ts checks them without a browser.
import type { ModelKind, UserModel } from "@/lib/portal/types";

export type KindFilter = "all" | ModelKind;
export const KIND_FILTERS: { value: KindFilter; label: string }[] = [
  { value: "all", label: "All kinds" },
  { value: "text", label: "Text" },
  { value: "image", label: "Image" },
  { value: "embedding", label: "Embedding" },
  { value: "speech", label: "Speech" },
  { value: "transcription", label: "Transcription" },
];

export type SortOrder = "kind" | "name" | "price-asc" | "price-desc" | "context-desc";
export const SORTS: { value: SortOrder; label: string }[] = [
  { value: "kind", label: "Kind, then name" },
  { value: "name", label: "Name" },
  { value: "price-asc", label: "Price: lowest first" },
  { value: "price-desc", label: "Price: highest first" },
  { value: "context-desc", label: "Context window: largest first" },
];

const KIND_ORDER: ModelKind[] = ["image", "text", "embedding", "speech", "transcription"];

/**
 * The price a model is sorted by: the rate of what it is billed for first, per 1M units: input tokens for text and
 * embeddings, output image tokens for images, characters for speech, seconds of audio for transcription. Kinds are
 * billed in different units, so "cheapest" compares like with like best within one kind (filter by kind first).
 */
export function sortPrice(model: UserModel): number {
  switch (model.kind) {
    case "image":
      return model.price.imageOutput;
    case "speech":
      return model.price.characterInput;
    case "transcription":
      return model.price.audioInputSecond;
    default:
      return model.price.textInput;
  }
}

/** The models whose name or display name holds `search` (any case), of `kind`, in `sort` order; ties by name. */
export function filterModels(models: UserModel[], search: string, kind: KindFilter, sort: SortOrder): UserModel[] {
  const needle = search.trim().toLowerCase();
  const shown = models.filter(
    (model) =>
      (kind === "all" || model.kind === kind) &&
      (!needle || model.id.toLowerCase().includes(needle) || model.displayName.toLowerCase().includes(needle)),
  );
  const byName = (a: UserModel, b: UserModel) => a.id.localeCompare(b.id);
  const order: Record<SortOrder, (a: UserModel, b: UserModel) => number> = {
    kind: (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || byName(a, b),
    name: byName,
    "price-asc": (a, b) => sortPrice(a) - sortPrice(b) || byName(a, b),
    "price-desc": (a, b) => sortPrice(b) - sortPrice(a) || byName(a, b),
    "context-desc": (a, b) => b.contextWindow - a.contextWindow || byName(a, b),
  };
  return [...shown].sort(order[sort]);
}

/**
 * Whether a curl example with one of the person's keys can work: a key of theirs is in a group that offers the model.
 * With no key yet, any group open to them will do (the Keys page makes one there).
 */
export function callableWithKeys(model: UserModel, keyGroups: string[]): boolean {
  return keyGroups.length === 0 || model.groups.some((group) => keyGroups.includes(group));
}
