"use client";
// A key's state as its owner and the operator see it (lib/keys/controls.ts): who stopped it (the owner's pause, the
// operator's disable, or both) and which limits the operator set. One component for the portal's Keys page and the
// operator's user drawer, worded for the one who reads it.
import { Group, Text } from "@mantine/core";
import type { ApiKey } from "@/lib/portal/types";
import { StatusBadge } from "./feedback";

export type Viewer = "owner" | "operator";

/** The status badges: "active", or each side that stopped the key; expired and deleted as they are. */
export function KeyStatus({ apiKey, viewer }: { apiKey: ApiKey; viewer: Viewer }) {
  return (
    <Group gap={4} data-testid="key-status">
      {apiKey.status !== "disabled" ? <StatusBadge status={apiKey.status} /> : null}
      {apiKey.status === "disabled" && apiKey.disabledByOperator ? (
        <StatusBadge status="disabled">{viewer === "owner" ? "disabled by the operator" : "disabled by an operator"}</StatusBadge>
      ) : null}
      {apiKey.status === "disabled" && apiKey.pausedByOwner ? (
        <StatusBadge status="expired">{viewer === "owner" ? "paused by you" : "paused by its owner"}</StatusBadge>
      ) : null}
    </Group>
  );
}

/** A line under a limit the operator set: the owner may tighten it, not loosen it. */
export function SetByOperator({ viewer, testId, children }: { viewer: Viewer; testId: string; children?: string }) {
  return (
    <Text size="xs" c="dimmed" data-testid={testId}>
      {children ?? `set by ${viewer === "owner" ? "the operator" : "an operator"}`}
    </Text>
  );
}
