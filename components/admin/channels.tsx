"use client";
// Operator: upstream channels. Create and edit (type, base URL, key, models, mapping, settings, priority, weight),
// switch on and off, and test one with a click: a tiny real request through its adapter, with latency and the
// upstream's error if any (POST /api/admin/channels/{id}/test). The form, the table and the tests are in
// components/admin/channels/.
import { useState } from "react";
import { Button, Card, EmptyState, Group, Modal, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconPlus, IconServer } from "@tabler/icons-react";
import { api, useApi } from "@/lib/portal/api";
import type { AdminChannel } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { ChannelForm } from "./channels/form";
import { ChannelsTable } from "./channels/table";
import { useChannelTests } from "./channels/use-channel-tests";

export function ChannelsAdmin() {
  const channels = useApi<{ data: AdminChannel[] }>("/api/admin/channels");
  const [editing, setEditing] = useState<AdminChannel | "new" | null>(null);
  const [deleting, setDeleting] = useState<AdminChannel | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const tests = useChannelTests();

  async function toggle(channel: AdminChannel, enabled: boolean) {
    setBusy(channel.id);
    try {
      await api(`/api/admin/channels/${encodeURIComponent(channel.id)}`, {
        method: "PATCH",
        body: { status: enabled ? "enabled" : "disabled" },
      });
      await channels.reload();
    } catch (error) {
      notifications.show({ color: "red", title: "Could not change the channel", message: (error as Error).message });
    } finally {
      setBusy(null);
    }
  }

  async function remove() {
    if (!deleting) return;
    try {
      await api(`/api/admin/channels/${encodeURIComponent(deleting.id)}`, { method: "DELETE" });
      notifications.show({ color: "teal", title: "Channel deleted", message: deleting.name });
      setDeleting(null);
      await channels.reload();
    } catch (error) {
      notifications.show({ color: "red", title: "Could not delete the channel", message: (error as Error).message });
    }
  }

  const list = channels.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Channels"
        description="Upstreams the gateway routes to: highest priority first, weighted among equals; a failure before the first byte tries the next."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
            New channel
          </Button>
        }
      />
      {channels.error ? <LoadError error={channels.error} onRetry={channels.reload} /> : null}
      {channels.loading && !channels.data ? (
        <Loading />
      ) : channels.data && list.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState
            icon={<IconServer size={28} />}
            variant="light"
            title="No channels"
            description="Without a channel no model can be served. Add an upstream, or a simulator channel to work offline."
          />
        </Card>
      ) : channels.data ? (
        <ChannelsTable
          channels={list}
          tests={tests}
          busy={busy}
          onToggle={(channel, enabled) => void toggle(channel, enabled)}
          onEdit={setEditing}
          onDelete={setDeleting}
        />
      ) : null}

      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={<Text fw={600}>{editing === "new" ? "New channel" : "Edit channel"}</Text>}
        size="lg"
        centered
      >
        {editing !== null ? (
          <ChannelForm
            key={editing === "new" ? "new" : editing.id}
            channel={editing === "new" ? null : editing}
            onClose={() => setEditing(null)}
            onSaved={() => {
              // A test result from before the edit no longer says anything about the channel.
              if (editing !== "new") tests.forget(editing.id);
              setEditing(null);
              void channels.reload();
            }}
          />
        ) : null}
      </Modal>
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={<Text fw={600}>Delete this channel?</Text>} centered>
        <Stack gap="md">
          <Text size="sm">
            <b>{deleting?.name}</b> will no longer serve requests. Requests for its models go to other channels, or fail when there is none.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              Keep it
            </Button>
            <Button color="red" onClick={() => void remove()}>
              Delete channel
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
