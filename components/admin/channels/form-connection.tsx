"use client";
// The channel form's first section: name, type, and where the upstream is (base URL and key), with a button that
// fetches the upstream's own model list for the Models section.
import { Button, Group, PasswordInput, Select, SimpleGrid, Text, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import type { AdminChannel } from "@/lib/portal/types";
import { CHANNEL_TYPES, type ChannelValues } from "./values";

const BASE_URL_EXAMPLES: Record<string, string> = {
  anthropic: "e.g. https://api.anthropic.com",
  azure: "e.g. https://RESOURCE.openai.azure.com (the mapping names deployments; settings.apiVersion, default 2024-10-21)",
};

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
  const simulator = type === "simulator";
  const typeProps = form.getInputProps("type");
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <TextInput label="Name" {...form.getInputProps("name")} data-autofocus name="name" />
        <Select
          label="Type"
          data={CHANNEL_TYPES}
          {...typeProps}
          onChange={(value) => typeProps.onChange(value ?? "openai")}
          allowDeselect={false}
          name="type"
        />
      </SimpleGrid>
      {!simulator ? (
        <>
          <TextInput
            label="Base URL"
            description={BASE_URL_EXAMPLES[type] ?? "e.g. https://api.openai.com/v1"}
            {...form.getInputProps("baseUrl")}
            name="baseUrl"
          />
          <PasswordInput
            label="Upstream API key"
            description={channel?.hasApiKey ? "A key is set. Leave empty to keep it." : "Stored encrypted; never shown again."}
            {...form.getInputProps("apiKey")}
            autoComplete="off"
            name="apiKey"
          />
        </>
      ) : (
        <Text size="sm" c="dimmed">
          The simulator needs no URL or key: it renders real images and streams realistic text offline, labelled as simulated.
        </Text>
      )}
      {channel && !simulator ? (
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
