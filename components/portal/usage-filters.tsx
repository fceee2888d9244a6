"use client";
// The Usage page's filters: model, type, status, key and a date range; a filter the server refuses shows its
// message under that filter.
import { useMemo } from "react";
import { Button, Card, Group, Select, SimpleGrid, TextInput } from "@mantine/core";
import { IconFilterOff } from "@tabler/icons-react";
import { ALL_MODELS } from "@/lib/catalog/models";
import { fieldMessage, useApi, type ApiError } from "@/lib/portal/api";
import type { ApiKey, UsageRow } from "@/lib/portal/types";
import { EMPTY, type Filters } from "./use-usage-export";

export const FILTER_PARAMS = ["model", "kind", "status", "keyId", "from", "to"];

export function UsageFilters({
  filters,
  set,
  rows,
  error,
}: {
  filters: Filters;
  set: (change: Partial<Filters>) => void;
  /** The rows shown, whose models join the model list. */
  rows: UsageRow[] | undefined;
  /** The usage answer's error: one about a filter shows under it. */
  error: ApiError | null;
}) {
  const keys = useApi<{ data: ApiKey[] }>("/api/user/keys");
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY);
  const fieldError = (name: string) => (error?.param === name ? fieldMessage(error.message) : undefined);
  const modelOptions = useMemo(() => [...new Set([...ALL_MODELS, ...(rows?.map((row) => row.model).filter(Boolean) ?? [])])], [rows]);
  const keyOptions = (keys.data?.data ?? []).map((key) => ({ value: key.id, label: `${key.name || "Unnamed"} (${key.prefix}…)` }));
  return (
    <Card withBorder radius="lg" padding="md" mb="md">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 6 }} spacing="sm">
        <Select
          label="Model"
          placeholder="All models"
          data={modelOptions}
          value={filters.model}
          onChange={(model) => set({ model })}
          clearable
          searchable
          error={fieldError("model")}
        />
        <Select
          label="Type"
          placeholder="All"
          data={[
            { value: "request", label: "Requests" },
            { value: "topup", label: "Top-ups" },
            { value: "adjust", label: "Adjustments" },
          ]}
          value={filters.kind}
          onChange={(kind) => set({ kind })}
          clearable
          error={fieldError("kind")}
        />
        <Select
          label="Status"
          placeholder="All"
          data={["success", "error", "cancelled", "refused"]}
          value={filters.status}
          onChange={(status) => set({ status })}
          clearable
          error={fieldError("status")}
        />
        <Select
          label="Key"
          placeholder="All keys"
          data={keyOptions}
          value={filters.keyId}
          onChange={(keyId) => set({ keyId })}
          clearable
          searchable
          error={fieldError("keyId")}
        />
        <TextInput
          label="From (UTC)"
          type="date"
          value={filters.from}
          onChange={(event) => set({ from: event.currentTarget.value })}
          error={fieldError("from")}
        />
        <TextInput
          label="To (UTC, inclusive)"
          type="date"
          value={filters.to}
          onChange={(event) => set({ to: event.currentTarget.value })}
          error={fieldError("to")}
        />
      </SimpleGrid>
      {filtered ? (
        <Group justify="flex-end" mt="sm">
          <Button size="xs" variant="subtle" color="gray" leftSection={<IconFilterOff size={14} />} onClick={() => set(EMPTY)}>
            Clear filters
          </Button>
        </Group>
      ) : null}
    </Card>
  );
}
