"use client";
// The operator's model pickers: every model the gateway knows of (GET /api/admin/models: the catalog's, every
// channel's, every priced one and every one a group names), searchable as you type, each with where it comes from and
// a "no price" mark when users cannot call it; a new name can still be typed. One value (`ModelPicker`, an
// Autocomplete: the prices form, the ledger's filter) or several (`ModelsPicker`, a TagsInput: a group's models, a
// channel's models). Spread a form's getInputProps over either, as over the Mantine inputs they wrap.
import { Autocomplete, Group, TagsInput, Text, type AutocompleteProps, type TagsInputProps } from "@mantine/core";
import { useApi } from "@/lib/portal/api";
import type { KnownModel } from "@/lib/portal/types";

/** The known models (cached and shared by every picker on the page), or [] while they load. */
export function useKnownModels(): { models: KnownModel[]; byId: Map<string, KnownModel>; reload: () => Promise<void> } {
  const known = useApi<{ data: KnownModel[] }>("/api/admin/models");
  const models = known.data?.data ?? [];
  return { models, byId: new Map(models.map((model) => [model.id, model])), reload: known.reload };
}

/**
 * The picker's choices: the catalog's models, then those only channels serve, then the rest (priced or named by a
 * group, and `extra`, e.g. the names an upstream listed), each part by name; a name appears once. One flat list (each
 * option says where it comes from): Mantine's grouped lists break the listbox's ARIA structure.
 */
export function modelOptions(models: KnownModel[], extra: readonly string[] = []): string[] {
  const catalog = models.filter((model) => model.inCatalog).map((model) => model.id);
  const channels = models.filter((model) => !model.inCatalog && model.channels.length > 0).map((model) => model.id);
  const seen = new Set([...catalog, ...channels]);
  const other = [...new Set([...models.map((model) => model.id), ...extra])].filter((id) => !seen.has(id)).sort();
  return [...catalog, ...channels, ...other];
}

/** Where a model comes from, in a few words: "channel Acme, Beta · no price". */
export function modelOrigin(model: KnownModel | undefined): string {
  if (!model) return "new name";
  const parts: string[] = [];
  if (model.channels.length) parts.push(`channel ${model.channels.map((channel) => channel.name).join(", ")}`);
  else if (model.inCatalog) parts.push(model.kind);
  if (!model.priced) parts.push("no price");
  return parts.join(" · ");
}

function renderOption(byId: Map<string, KnownModel>) {
  return ({ option }: { option: { value: string } }) => {
    const model = byId.get(option.value);
    return (
      <Group gap="xs" justify="space-between" wrap="nowrap" w="100%">
        <Text size="sm" ff="monospace" style={{ wordBreak: "break-all" }}>
          {option.value}
        </Text>
        <Text size="xs" c={model && !model.priced ? "red.9" : "gray.7"} ta="right">
          {modelOrigin(model)}
        </Text>
      </Group>
    );
  };
}

/** One model: search the known ones or type a new name. */
export function ModelPicker({ extra, ...props }: Omit<AutocompleteProps, "data" | "renderOption"> & { extra?: readonly string[] }) {
  const { models, byId } = useKnownModels();
  return (
    <Autocomplete
      data={modelOptions(models, extra)}
      renderOption={renderOption(byId)}
      limit={300}
      maxDropdownHeight={300}
      data-testid="known-model-picker"
      {...props}
    />
  );
}

/** Several models: pick known ones or type new names (Enter). */
export function ModelsPicker({ extra, ...props }: Omit<TagsInputProps, "data" | "renderOption"> & { extra?: readonly string[] }) {
  const { models, byId } = useKnownModels();
  return (
    <TagsInput
      data={modelOptions(models, extra)}
      renderOption={renderOption(byId)}
      limit={300}
      maxDropdownHeight={300}
      data-testid="known-models-picker"
      {...props}
    />
  );
}
