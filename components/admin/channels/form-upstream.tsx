"use client";
// The channel form's inputs for reaching the upstream, as the chosen type needs them (docs/api.md "Channel types"):
// the base URL (required, or optional with the vendor's default), the credential (a key, an AWS credential, a Vertex
// AI service-account key file), the type's own settings (region, project, API version) and how the model mapping is
// read. Their help is in type-help.ts.
import { Group, PasswordInput, SimpleGrid, Text, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { IconInfoCircle } from "@tabler/icons-react";
import type { AdminChannel } from "@/lib/portal/types";
import { VertexKey } from "./form-vertex-key";
import { keyDescription, TYPE_HELP, type TypeHelp } from "./type-help";
import { type ChannelValues, needsBaseUrl, TYPE_SETTINGS } from "./values";

type Props = { form: UseFormReturnType<ChannelValues>; channel: AdminChannel | null };

function BaseUrlInput({ form, help, required }: Props & { help: TypeHelp; required: boolean }) {
  return (
    <TextInput
      label="Base URL"
      withAsterisk={required}
      description={help.baseUrl.description}
      placeholder={help.baseUrl.placeholder}
      {...form.getInputProps("baseUrl")}
      name="baseUrl"
    />
  );
}

function SettingsInputs({ form }: Props) {
  const { type } = form.getValues();
  const shown = TYPE_SETTINGS[type];
  if (!shown.length) return null;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
      {shown.includes("region") ? (
        <TextInput
          label="Region"
          withAsterisk
          description={type === "bedrock" ? "The AWS region of the Bedrock runtime." : "Where the models run: a region, or global."}
          placeholder={type === "bedrock" ? "us-east-1" : "us-east5"}
          {...form.getInputProps("region")}
          name="region"
        />
      ) : null}
      {shown.includes("project") ? (
        <TextInput
          label="Project ID"
          description="Optional: the key file's project_id when empty."
          placeholder="my-project-123456"
          {...form.getInputProps("project")}
          name="project"
        />
      ) : null}
      {shown.includes("apiVersion") ? (
        <TextInput
          label="API version"
          description="Optional: 2024-10-21 when empty; 2024-09-01-preview or newer."
          placeholder="2024-10-21"
          {...form.getInputProps("apiVersion")}
          name="apiVersion"
        />
      ) : null}
    </SimpleGrid>
  );
}

export function UpstreamFields({ form, channel }: Props) {
  const { type } = form.getValues();
  if (type === "simulator")
    return (
      <Text size="sm" c="dimmed">
        The simulator needs no URL or key: it renders real images and streams realistic text offline, labelled as simulated.
      </Text>
    );
  const help = TYPE_HELP[type];
  const required = needsBaseUrl(type);
  const hasKey = Boolean(channel?.hasApiKey);
  const credential =
    type === "vertex" ? (
      <VertexKey form={form} help={help} hasKey={hasKey} />
    ) : (
      <PasswordInput
        label={help.key.label}
        description={keyDescription(help, hasKey)}
        placeholder={help.key.placeholder}
        {...form.getInputProps("apiKey")}
        autoComplete="off"
        name="apiKey"
      />
    );
  return (
    <>
      {required ? <BaseUrlInput form={form} channel={channel} help={help} required /> : null}
      {credential}
      <SettingsInputs form={form} channel={channel} />
      {required ? null : <BaseUrlInput form={form} channel={channel} help={help} required={false} />}
      {help.note ? (
        <Group gap={6} wrap="nowrap" align="flex-start" data-testid="channel-type-note">
          <IconInfoCircle size={16} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
          <Text size="sm" c="dimmed">
            {help.note}
          </Text>
        </Group>
      ) : null}
    </>
  );
}
