"use client";
// The channel form's models section: the public names it serves, their upstream names, and the other per-type
// settings (those with inputs of their own are in form-upstream.tsx).
import { JsonInput, Textarea } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { ModelsPicker, useKnownModels } from "@/components/admin/model-picker";
import type { ChannelValues } from "./values";
import { UnpricedNote } from "./unpriced-note";

export function ModelsSection({ form, fetched }: { form: UseFormReturnType<ChannelValues>; fetched: string[] | null }) {
  const { byId, models: known } = useKnownModels();
  // Known once the list has loaded: a model with no price row (or a new name) cannot be called by users.
  const unpriced = known.length ? form.getValues().models.filter((model) => !byId.get(model)?.priced) : [];
  return (
    <>
      <ModelsPicker
        label="Models"
        description="Public model names this channel serves: the catalog's, other channels' and the upstream's list. Type a name and press Enter."
        extra={fetched ?? []}
        {...form.getInputProps("models")}
        clearable
        name="models"
      />
      <UnpricedNote models={unpriced} />
      <Textarea
        label="Model mapping"
        description="Optional, one per line: public-model = upstream-model"
        placeholder={"std-5.5 = gpt-5.5\nstd-image-2 = gpt-image-2"}
        autosize
        minRows={2}
        {...form.getInputProps("modelMapping")}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        name="modelMapping"
      />
      <JsonInput
        label="Settings"
        description='Other per-type options as JSON, e.g. {"maxTokensField": "max_tokens"} or {"delayMs": 50} for the simulator. Region, project and API version have their own inputs above.'
        autosize
        minRows={2}
        formatOnBlur
        validationError="Not valid JSON"
        {...form.getInputProps("settings")}
        name="settings"
      />
    </>
  );
}
