"use client";
// The channel form's first section: name, type (with presets of OpenAI-compatible services), where the upstream is
// and how to sign in to it (form-upstream.tsx), with a button that fetches the upstream's own model list for the
// Models section.
import { Button, Group, Select, SimpleGrid, Text, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import type { AdminChannel } from "@/lib/portal/types";
import { PresetSelect } from "./form-preset";
import { UpstreamFields } from "./form-upstream";
import { CHANNEL_TYPES, type ChannelType, type ChannelValues } from "./values";

export function ConnectionSection({
  form,
  channel,
  fetched,
  fetching,
  onFetchModels,
}: {
  form: UseFormReturnType<ChannelValues>;
  channel: AdminChannel | null;
  fetched: string[] | null;
  fetching: boolean;
  onFetchModels: () => void;
}) {
  const type = form.getValues().type;
  const typeProps = form.getInputProps("type");
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <TextInput label="Name" {...form.getInputProps("name")} data-autofocus name="name" />
        <Select
          label="Type"
          data={CHANNEL_TYPES}
          {...typeProps}
          onChange={(value) => typeProps.onChange((value as ChannelType | null) ?? "openai")}
          allowDeselect={false}
          name="type"
        />
      </SimpleGrid>
      {type === "openai" ? <PresetSelect form={form} /> : null}
      <UpstreamFields form={form} channel={channel} />
      {channel && type !== "simulator" ? (
        <Group gap="xs">
          <Button size="compact-xs" variant="light" onClick={onFetchModels} loading={fetching}>
            Fetch the upstream&apos;s models
          </Button>
          {fetched ? (
            <Text size="xs" c="dimmed" data-testid="fetched-models">
              {fetched.length} found; pick them in Models below
              {fetched.length ? ` (${fetched.slice(0, 4).join(", ")}${fetched.length > 4 ? ", …" : ""})` : ""}.
            </Text>
          ) : null}
        </Group>
      ) : null}
    </>
  );
}
