"use client";
// Create or edit a channel (POST /api/admin/channels, PATCH /api/admin/channels/{id}), in three sections:
// connection, models, routing. Checked in the browser first (channelRules), then by the server, whose error lands
// on the field its `param` names.
import { useState } from "react";
import { Button, Group, Stack } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import type { AdminChannel } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";
import { ConnectionSection } from "./form-connection";
import { ModelsSection } from "./form-models";
import { RoutingSection } from "./form-routing";
import { CHANNEL_ALIASES, channelBody, channelRules, channelValues } from "./values";

export function ChannelForm({ channel, onClose, onSaved }: { channel: AdminChannel | null; onClose: () => void; onSaved: () => void }) {
  const [fetched, setFetched] = useState<string[] | null>(null);
  const [fetching, setFetching] = useState(false);
  const { form, onSubmit, formError, setFormError, submitting } = useApiForm({
    initialValues: channelValues(channel),
    validate: channelRules,
    aliases: CHANNEL_ALIASES,
    submit: async (values) => {
      const body = channelBody(values, channel);
      if (channel) await api(`/api/admin/channels/${encodeURIComponent(channel.id)}`, { method: "PATCH", body });
      else await api("/api/admin/channels", { body });
    },
    onSuccess: (_result, values) => {
      notifications.show({ color: "teal", title: channel ? "Channel saved" : "Channel created", message: values.name });
      onSaved();
    },
  });

  /** The upstream's own list (POST …/fetch-models with the saved key), offered as choices for Models. */
  async function fetchModels() {
    if (!channel) return;
    setFetching(true);
    try {
      const answer = await api<{ models: string[] }>(`/api/admin/channels/${encodeURIComponent(channel.id)}/fetch-models`, {
        method: "POST",
        body: {},
      });
      setFetched(answer.models);
    } catch (error) {
      setFormError((error as Error).message);
    } finally {
      setFetching(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label={channel ? "Edit channel" : "Create channel"}>
      <Stack gap="md">
        <FormError message={formError} />
        <ConnectionSection form={form} channel={channel} fetched={fetched} fetching={fetching} onFetchModels={() => void fetchModels()} />
        <ModelsSection form={form} fetched={fetched} />
        <RoutingSection form={form} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={submitting}>
            {channel ? "Save channel" : "Create channel"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
