"use client";
// Small shared pieces for loading, errors and labels, so every page says these things the same way.
import type { ReactNode } from "react";
import { ActionIcon, Alert, Badge, Button, Center, Code, CopyButton, Group, Loader, Text, Tooltip } from "@mantine/core";
import { IconAlertTriangle, IconCheck, IconCopy, IconFlask, IconRefresh } from "@tabler/icons-react";
import type { ApiError } from "@/lib/portal/api";
import { usd, usdPrecise } from "@/lib/portal/format";

export function LoadError({
  error,
  onRetry,
  title = "Could not load this",
}: {
  error: ApiError | Error;
  onRetry?: () => void;
  title?: string;
}) {
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title={title} role="alert">
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm">{error.message}</Text>
        {onRetry ? (
          <Button size="xs" variant="default" leftSection={<IconRefresh size={14} />} onClick={onRetry}>
            Try again
          </Button>
        ) : null}
      </Group>
    </Alert>
  );
}

export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert" data-testid="form-error">
      {message}
    </Alert>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" />
        <Text size="sm" c="dimmed">
          {label}
        </Text>
      </Group>
    </Center>
  );
}

/** The label wherever the built-in simulator shows up: its answers are made up, not a model's. */
export function SimulatorBadge({ size = "sm", mixed = false }: { size?: "xs" | "sm" | "md"; mixed?: boolean }) {
  return (
    <Tooltip
      label={
        mixed
          ? "One of the channels serving this model is the built-in simulator: an answer may be simulated."
          : "Served by the built-in simulator: images and text are generated offline for testing, not by a real model."
      }
      multiline
      w={260}
    >
      <Badge
        size={size}
        color="orange"
        variant="light"
        leftSection={<IconFlask size={12} />}
        data-testid="simulator-badge"
        style={{ flexShrink: 0, overflow: "visible" }}
      >
        {mixed ? "May be simulated" : "Simulator"}
      </Badge>
    </Tooltip>
  );
}

export function CopyIcon({ value, label = "Copy" }: { value: string; label?: string }) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? "Copied" : label} withArrow>
          <ActionIcon variant="subtle" color={copied ? "teal" : "gray"} onClick={copy} aria-label={label}>
            {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** A secret or value in monospace with a copy button. */
export function CopyField({ value, label, testId }: { value: string; label?: string; testId?: string }) {
  return (
    <Group gap={4} wrap="nowrap" className="copy-field">
      <Code block style={{ flex: 1, wordBreak: "break-all", whiteSpace: "pre-wrap" }} data-testid={testId}>
        {value}
      </Code>
      <CopyIcon value={value} label={label ?? "Copy"} />
    </Group>
  );
}

const STATUS_COLORS: Record<string, string> = {
  active: "teal",
  enabled: "teal",
  success: "teal",
  unused: "blue",
  used: "gray",
  sent: "teal",
  logged: "blue",
  disabled: "gray",
  expired: "orange",
  deleted: "gray",
  cancelled: "yellow",
  refused: "orange",
  error: "red",
  failed: "red",
};

export function StatusBadge({ status, children }: { status: string; children?: ReactNode }) {
  return (
    <Badge variant="light" color={STATUS_COLORS[status] ?? "gray"} size="sm" style={{ minWidth: "max-content" }}>
      {children ?? status}
    </Badge>
  );
}

/** A ledger row's amount: a charge to the micro-dollar, a credit as "+$5.00" in green. */
export function LedgerAmount({ cost }: { cost: number }) {
  return <>{cost < 0 ? `+${usd(-cost)}` : usdPrecise(cost)}</>;
}

/** A ledger row's status with its HTTP status when it is not 200, and the error on hover. */
export function LedgerStatus({ row }: { row: { status: string; httpStatus: number | null; error: string | null } }) {
  return (
    <Tooltip label={row.error ?? ""} disabled={!row.error} multiline w={320}>
      <span>
        <StatusBadge status={row.status}>
          {row.status}
          {row.httpStatus && row.httpStatus !== 200 ? ` · ${row.httpStatus}` : ""}
        </StatusBadge>
      </span>
    </Tooltip>
  );
}
