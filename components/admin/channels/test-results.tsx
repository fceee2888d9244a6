"use client";
// What a channel test answered: the single test's badge, latency and upstream error, and the per-model list.
import { Badge, Stack, Text } from "@mantine/core";
import { latency } from "@/lib/portal/format";
import type { ChannelTestResult } from "@/lib/portal/types";
import { UnpricedNote } from "./unpriced-note";

export function TestResult({ result }: { result: ChannelTestResult | "running" | undefined }) {
  if (!result) return null;
  if (result === "running")
    return (
      <Text size="xs" c="dimmed">
        Testing…
      </Text>
    );
  return (
    <Stack gap={2} data-testid="channel-test-result">
      <Badge color={result.ok ? "teal" : "red"} variant="light" size="sm">
        {result.ok ? "OK" : `Failed · ${result.status}`} · {latency(result.latencyMs)}
      </Badge>
      <Text size="xs" c="dimmed">
        {result.model} via {result.kind}
      </Text>
      {result.error ? (
        <Text size="xs" c="red" maw={260} lineClamp={4} title={result.error}>
          {result.error}
        </Text>
      ) : null}
      <UnpricedNote models={result.unpriced ?? []} compact />
    </Stack>
  );
}

/** One line per model tested so far, and "Testing…" until all `total` have answered. */
export function EveryModelResults({ results, total }: { results: ChannelTestResult[]; total: number }) {
  return (
    <Stack gap={0} data-testid="channel-test-every">
      {results.map((result) => (
        <Text key={result.model} size="xs" c={result.ok ? "teal.8" : "red"} title={result.error}>
          {result.model}: {result.ok ? `OK · ${latency(result.latencyMs)}` : `failed${result.status ? ` · ${result.status}` : ""}`}
        </Text>
      ))}
      <UnpricedNote models={results.at(-1)?.unpriced ?? []} compact />
      {results.length < total ? (
        <Text size="xs" c="dimmed">
          Testing…
        </Text>
      ) : null}
    </Stack>
  );
}
