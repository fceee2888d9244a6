"use client";
// Operator: announcements, the notices users see on their dashboards (maintenance, new models, price changes).
// Plain text with a level (info, warning) and an optional window: shown from "Starts" (or at once) until "Ends" (or
// until deleted). POST/PATCH/DELETE /api/admin/announcements; each change is in the audit log.
import { useState } from "react";
import { Badge, Button, Card, EmptyState, Group, Modal, Select, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconEdit, IconPlus, IconSpeakerphone, IconTrash } from "@tabler/icons-react";
import { api, useApi } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { dateTime } from "@/lib/portal/format";
import type { AdminAnnouncement } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { FormError, LoadError, Loading } from "@/components/feedback";

const TITLE_MAX = 120;
const BODY_MAX = 2_000;

/** An ISO date as a datetime-local input's value (local time), or "". */
function localInput(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  const offset = date.getTimezoneOffset() * 60_000;
  return new Date(date.getTime() - offset).toISOString().slice(0, 16);
}

/** A datetime-local value (local time) as an ISO date, or null when empty. */
function isoFromInput(value: string): string | null {
  return value ? new Date(value).toISOString() : null;
}

const STATE_COLORS = { current: "teal", scheduled: "blue", ended: "gray" } as const;

function AnnouncementForm({ announcement, onDone }: { announcement: AdminAnnouncement | null; onDone: () => void }) {
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: {
      title: announcement?.title ?? "",
      body: announcement?.body ?? "",
      level: announcement?.level ?? "info",
      startsAt: localInput(announcement?.startsAt ?? null),
      endsAt: localInput(announcement?.endsAt ?? null),
    },
    validate: {
      title: (value) => (value.trim() ? null : "Write a title"),
      body: (value) => (value.trim() ? null : "Write the notice"),
      endsAt: (value, values) =>
        value && values.startsAt && new Date(value) <= new Date(values.startsAt) ? "Must be after the start" : null,
    },
    submit: (values) => {
      const body = {
        title: values.title.trim(),
        body: values.body.trim(),
        level: values.level,
        startsAt: isoFromInput(values.startsAt),
        endsAt: isoFromInput(values.endsAt),
      };
      return announcement
        ? api(`/api/admin/announcements/${encodeURIComponent(announcement.id)}`, { method: "PATCH", body })
        : api("/api/admin/announcements", { body });
    },
    onSuccess: (_result, values) => {
      notifications.show({ color: "teal", title: announcement ? "Announcement saved" : "Announcement posted", message: values.title });
      onDone();
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label={announcement ? "Edit announcement" : "New announcement"}>
      <Stack gap="md">
        <FormError message={formError} />
        <TextInput label="Title" maxLength={TITLE_MAX} {...form.getInputProps("title")} name="title" data-autofocus />
        <Textarea
          label="Notice"
          description={`Plain text, up to ${BODY_MAX.toLocaleString("en-US")} characters; line breaks are kept.`}
          autosize
          minRows={3}
          maxLength={BODY_MAX}
          {...form.getInputProps("body")}
          name="body"
        />
        <Select
          label="Level"
          data={[
            { value: "info", label: "Info" },
            { value: "warning", label: "Warning" },
          ]}
          allowDeselect={false}
          {...form.getInputProps("level")}
          name="level"
        />
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
          <TextInput
            type="datetime-local"
            label="Starts"
            description="Empty: at once"
            {...form.getInputProps("startsAt")}
            name="startsAt"
          />
          <TextInput
            type="datetime-local"
            label="Ends"
            description="Empty: until deleted"
            {...form.getInputProps("endsAt")}
            name="endsAt"
          />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button type="submit" loading={submitting}>
            {announcement ? "Save" : "Post announcement"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function AnnouncementsAdmin() {
  const list = useApi<{ data: AdminAnnouncement[] }>("/api/admin/announcements");
  const [editing, setEditing] = useState<AdminAnnouncement | "new" | null>(null);
  const [deleting, setDeleting] = useState<AdminAnnouncement | null>(null);

  async function remove() {
    if (!deleting) return;
    try {
      await api(`/api/admin/announcements/${encodeURIComponent(deleting.id)}`, { method: "DELETE" });
      notifications.show({ color: "teal", title: "Announcement deleted", message: deleting.title });
      setDeleting(null);
      await list.reload();
    } catch (error) {
      notifications.show({ color: "red", title: "Could not delete the announcement", message: (error as Error).message });
    }
  }

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Announcements"
        description="Notices on every user's dashboard: maintenance, new models, price changes. Users may dismiss one in their browser; a changed notice shows again."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
            New announcement
          </Button>
        }
      />
      {list.error ? <LoadError error={list.error} onRetry={list.reload} /> : null}
      {list.loading && !list.data ? (
        <Loading />
      ) : list.data && rows.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState
            icon={<IconSpeakerphone size={28} />}
            variant="light"
            title="No announcements"
            description="Post one to tell every user about maintenance, new models or price changes."
          />
        </Card>
      ) : (
        <Stack gap="md">
          {rows.map((row) => (
            <Card key={row.id} withBorder radius="lg" padding="lg" data-testid="announcement-row">
              <Stack gap="xs">
                <Group justify="space-between" wrap="wrap" gap="xs">
                  <Title order={2} fz="md" style={{ overflowWrap: "anywhere" }}>
                    {row.title}
                  </Title>
                  <Group gap={4}>
                    <Badge size="sm" variant="light" color={row.level === "warning" ? "orange" : "indigo"}>
                      {row.level}
                    </Badge>
                    <Badge size="sm" variant="light" color={STATE_COLORS[row.state]}>
                      {row.state === "current" ? "shown now" : row.state}
                    </Badge>
                  </Group>
                </Group>
                <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                  {row.body}
                </Text>
                <Text size="xs" c="dimmed">
                  {row.startsAt ? `From ${dateTime(row.startsAt)}` : "From its posting"} ·{" "}
                  {row.endsAt ? `until ${dateTime(row.endsAt)}` : "until deleted"} · posted {dateTime(row.createdAt)}
                </Text>
                <Group gap="xs">
                  <Button
                    size="xs"
                    variant="default"
                    leftSection={<IconEdit size={14} />}
                    onClick={() => setEditing(row)}
                    aria-label={`Edit ${row.title}`}
                  >
                    Edit
                  </Button>
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    leftSection={<IconTrash size={14} />}
                    onClick={() => setDeleting(row)}
                    aria-label={`Delete ${row.title}`}
                  >
                    Delete
                  </Button>
                </Group>
              </Stack>
            </Card>
          ))}
        </Stack>
      )}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={<Text fw={600}>{editing === "new" ? "New announcement" : "Edit announcement"}</Text>}
        centered
        size="lg"
      >
        {editing !== null ? (
          <AnnouncementForm
            announcement={editing === "new" ? null : editing}
            onDone={() => {
              setEditing(null);
              void list.reload();
            }}
          />
        ) : null}
      </Modal>
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={<Text fw={600}>Delete this announcement?</Text>} centered>
        <Stack gap="md">
          <Text size="sm">
            <b>{deleting?.title}</b> disappears from every dashboard.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              Keep it
            </Button>
            <Button color="red" onClick={() => void remove()}>
              Delete announcement
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
