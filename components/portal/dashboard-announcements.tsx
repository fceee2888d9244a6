"use client";
// The operator's notices in force (GET /api/user/announcements) at the top of the dashboard. Dismissing one hides it
// in this browser (localStorage) until the operator changes it: the key holds its id and its last change.
import { useEffect, useState } from "react";
import { Alert, Stack, Text } from "@mantine/core";
import { IconAlertTriangle, IconInfoCircle } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import type { Announcement } from "@/lib/portal/types";

const STORAGE_KEY = "gateway.dismissed-announcements";
/** Enough for every notice a dashboard shows; older entries fall off. */
const REMEMBERED = 50;

const seal = (announcement: Announcement) => `${announcement.id}@${announcement.updatedAt}`;

function readDismissed(): string[] {
  try {
    const stored = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? "[]");
    return Array.isArray(stored) ? stored.filter((entry): entry is string => typeof entry === "string") : [];
  } catch {
    return [];
  }
}

export function DashboardAnnouncements() {
  const announcements = useApi<{ data: Announcement[] }>("/api/user/announcements");
  // Read after mounting: the server render cannot know this browser's list.
  const [dismissed, setDismissed] = useState<string[] | null>(null);
  useEffect(() => setDismissed(readDismissed()), []);

  if (!announcements.data || dismissed === null) return null;
  const shown = announcements.data.data.filter((announcement) => !dismissed.includes(seal(announcement)));
  if (!shown.length) return null;

  function dismiss(announcement: Announcement) {
    const next = [...readDismissed().filter((entry) => !entry.startsWith(`${announcement.id}@`)), seal(announcement)].slice(-REMEMBERED);
    try {
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    } catch {
      // Storage full or off: dismissed for this page view only.
    }
    setDismissed(next);
  }

  return (
    <Stack gap="sm" mb="lg" component="section" aria-label="Announcements">
      {shown.map((announcement) => (
        <Alert
          key={announcement.id}
          color={announcement.level === "warning" ? "orange" : "indigo"}
          variant="light"
          icon={announcement.level === "warning" ? <IconAlertTriangle size={18} /> : <IconInfoCircle size={18} />}
          title={announcement.title}
          withCloseButton
          closeButtonLabel={`Dismiss ${announcement.title}`}
          onClose={() => dismiss(announcement)}
          data-testid="announcement"
        >
          <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
            {announcement.body}
          </Text>
        </Alert>
      ))}
    </Stack>
  );
}
