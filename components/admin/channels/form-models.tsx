"use client";
// The channel form's models section: the public names it serves, their upstream names, and the other per-type
// settings (those with inputs of their own are in form-upstream.tsx).
import { JsonInput, TagsInput, Textarea } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { ALL_MODELS } from "@/lib/catalog/models";
import type { ChannelValues } from "./values";

export function ModelsSection({ form, fetched }: { form: UseFormReturnType<ChannelValues>; fetched: string[] | null }) {
  return (
    <>
      <TagsInput
        label="Models"
        description="Public model names this channel serves. Type a name and press Enter."
        data={[...new Set([...ALL_MODELS, ...(fetched ?? [])])]}
        {...form.getInputProps("models")}
        clearable
        name="models"
      />
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
