"use client";
// The browsers signed in to this account (GET /api/user/sessions): sign one out, or all of them.
import { useState } from "react";
import { Badge, Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconDevices } from "@tabler/icons-react";
import { api, useApi } from "@/lib/portal/api";
import { relative } from "@/lib/portal/format";
import { dropPlaygroundKeysOnSignOut } from "@/lib/portal/playground-key";
import { LoadError, Loading } from "@/components/feedback";

type SessionRow = { id: string; createdAt: string; expiresAt: string; userAgent: string; address: string; current: boolean };

/** "Mozilla/5.0 (X11; Linux x86_64) … Chrome/131.0 …" → "Chrome on Linux": enough to recognise a browser. */
function browserName(userAgent: string): string {
  if (!userAgent) return "Unknown browser";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : "A browser";
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Windows/.test(userAgent)
        ? "Windows"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : null;
  return system ? `${browser} on ${system}` : browser;
}

export function SessionsCard() {
  const sessions = useApi<{ data: SessionRow[] }>("/api/user/sessions");
  const [busy, setBusy] = useState<string | null>(null);

  async function end(row: SessionRow) {
    setBusy(row.id);
    try {
      await api(`/api/user/sessions/${encodeURIComponent(row.id)}`, { method: "DELETE" });
      if (row.current) {
        window.location.assign("/sign-in");
        return;
      }
      notifications.show({ color: "teal", title: "Signed out", message: `${browserName(row.userAgent)} is signed out.` });
      await sessions.reload();
    } catch (error) {
      notifications.show({
        color: "red",
        title: "Could not sign that session out",
        message: error instanceof Error ? error.message : String(error),
      });
    } finally {
      setBusy(null);
    }
  }

  async function everywhere() {
    setBusy("all");
    try {
      await dropPlaygroundKeysOnSignOut();
      await api("/api/user/sessions/revoke-all", { method: "POST" });
      window.location.assign("/sign-in");
    } catch (error) {
      notifications.show({
        color: "red",
        title: "Could not sign out everywhere",
        message: error instanceof Error ? error.message : String(error),
      });
      setBusy(null);
    }
  }

  return (
    <Card withBorder radius="lg" padding="lg">
      <Group gap="sm" mb="xs" wrap="nowrap">
        <IconDevices size={22} />
        <Title order={2} fz="lg">
          Where you are signed in
        </Title>
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        Each browser that signed in, for up to 7 days. Signing one out ends it at once, even if someone copied its cookie.
      </Text>
      {sessions.error ? <LoadError error={sessions.error} onRetry={sessions.reload} /> : null}
      {!sessions.data ? (
        sessions.loading ? (
          <Loading />
        ) : null
      ) : (
        <Stack gap="xs" data-testid="sessions">
          {sessions.data.data.map((row) => (
            <Group key={row.id} justify="space-between" wrap="wrap" gap="xs" data-testid="session-row">
              <Stack gap={0} style={{ minWidth: 0 }}>
                <Text size="sm" fw={500}>
                  {browserName(row.userAgent)}{" "}
                  {row.current ? (
                    <Badge size="xs" variant="light" ml={4}>
                      this browser
                    </Badge>
                  ) : null}
                </Text>
                <Text size="xs" c="dimmed">
                  Signed in {relative(row.createdAt)}
                  {row.address ? ` from ${row.address}` : ""}
                </Text>
              </Stack>
              <Button size="xs" variant="default" loading={busy === row.id} onClick={() => void end(row)}>
                Sign out
              </Button>
            </Group>
          ))}
          <Group mt="xs">
            <Button color="red" variant="light" loading={busy === "all"} onClick={() => void everywhere()}>
              Sign out everywhere
            </Button>
          </Group>
        </Stack>
      )}
    </Card>
  );
}
