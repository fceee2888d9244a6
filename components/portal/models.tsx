"use client";
// Models & pricing: what the signed-in person may call, where, and what it costs in the unit its kind is billed by
// (GET /api/user/models, computed with the gateway's own billing functions; components/portal/model-prices.tsx),
// searchable by name, filtered by kind and sorted by price or context window (components/portal/models-catalog.ts).
// Each card names the groups that offer the model and carries a copyable example that works as pasted once
// $GATEWAY_API_KEY holds one of the person's keys; a model none of their keys can call gets no example (it would
// answer 403) but says which group has it (docs/api.md, "Models & pricing").
import { useState } from "react";
import Link from "next/link";
import { Alert, Anchor, Badge, Card, Group, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconSearch } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import { MESSAGE_MODELS, splitLongContext } from "@/lib/catalog/models";
import type { ModelKind, UserModel, UserModels } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { CopyField, LoadError, Loading, SimulatorBadge } from "@/components/feedback";
import { ApiBaseUrls, useBaseUrl } from "@/components/base-url";
import { ModelPrices } from "./model-prices";
import { callableWithKeys, filterModels, KIND_FILTERS, SORTS, type KindFilter, type SortOrder } from "./models-catalog";

/** What the card's badge calls each kind. */
const KIND_LABELS: Record<ModelKind, string> = {
  text: "text",
  image: "image",
  embedding: "embeddings",
  speech: "speech",
  transcription: "transcription",
};

function example(model: UserModel, base: string): string {
  const bearer = `-H "Authorization: Bearer $GATEWAY_API_KEY"`;
  if (model.kind === "embedding") {
    return `curl ${base}/v1/embeddings \\\n  ${bearer} \\\n  -H "Content-Type: application/json" \\\n  -d '{"model":"${model.id}","input":"The quick brown fox"}'`;
  }
  if (model.kind === "speech") {
    return `curl ${base}/v1/audio/speech \\\n  ${bearer} \\\n  -H "Content-Type: application/json" \\\n  -d '{"model":"${model.id}","input":"Hello from the gateway","voice":"alloy"}' \\\n  --output speech.mp3`;
  }
  if (model.kind === "transcription") {
    return `curl ${base}/v1/audio/transcriptions \\\n  ${bearer} \\\n  -F model=${model.id} \\\n  -F file=@speech.mp3`;
  }
  if (model.kind === "image") {
    return `curl ${base}/v1/images/generations \\\n  -H "Authorization: Bearer $GATEWAY_API_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '{"model":"${model.id}","prompt":"a lighthouse at dawn","size":"1024x1024","quality":"low"}'`;
  }
  // The msg-* family is shown in its own dialect; every other text model (operator-added ones too) as Chat Completions.
  const messagesFamily = (MESSAGE_MODELS as readonly string[]).includes(splitLongContext(model.id).base);
  if (model.endpoints.includes("/v1/messages") && (messagesFamily || !model.endpoints.includes("/v1/chat/completions"))) {
    return `curl ${base}/v1/messages \\\n  -H "x-api-key: $GATEWAY_API_KEY" \\\n  -H "anthropic-version: 2023-06-01" \\\n  -H "Content-Type: application/json" \\\n  -d '{"model":"${model.id}","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]}'`;
  }
  return `curl ${base}/v1/chat/completions \\\n  -H "Authorization: Bearer $GATEWAY_API_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '{"model":"${model.id}","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]}'`;
}

function ModelCard({
  model,
  base,
  keyGroups,
  openGroups,
  showGroups,
}: {
  model: UserModel;
  base: string;
  keyGroups: string[];
  openGroups: string[];
  showGroups: boolean;
}) {
  const callable = callableWithKeys(model, keyGroups);
  const groupNames = model.groups.join(", ");
  return (
    <Card withBorder radius="lg" padding="lg" data-testid="model-card" data-model={model.id}>
      <Stack gap="sm">
        {/* The name on its own row, the badges under it: a short name never shares its row with them. */}
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Title order={2} fz="md" ff="monospace" style={{ wordBreak: "break-all" }}>
            {model.id}
          </Title>
          <Text size="xs" c="dimmed">
            {model.displayName}
          </Text>
        </Stack>
        <Group gap={4} wrap="wrap" data-testid="model-badges">
          <Badge size="xs" variant="light" color="indigo" data-testid="model-kind">
            {KIND_LABELS[model.kind]}
          </Badge>
          {model.source === "simulator" ? (
            <SimulatorBadge size="xs" />
          ) : model.source === "mixed" ? (
            <SimulatorBadge size="xs" mixed />
          ) : null}
          {showGroups || !callable
            ? model.groups.map((group) => (
                <Badge key={`group-${group}`} size="xs" variant="default" tt="none" data-testid="model-group">
                  group {group}
                </Badge>
              ))
            : null}
          {model.endpoints.map((endpoint) => (
            <Badge key={endpoint} size="xs" variant="light" color="gray" tt="none">
              {endpoint}
            </Badge>
          ))}
        </Group>
        <ModelPrices model={model} />
        {callable ? (
          <CopyField value={example(model, base)} label={`Copy the example for ${model.id}`} testId="model-example" />
        ) : (
          <Alert color="orange" variant="light" p="sm" data-testid="model-other-group">
            <Text size="sm">
              Offered to group {groupNames}; your keys are in group {keyGroups.join(", ")}, so they get 403 for it.{" "}
              {model.groups.some((group) => openGroups.includes(group)) ? (
                <>
                  Create a key in group {groupNames} on the{" "}
                  <Anchor component={Link} href="/keys" size="sm" c="inherit" underline="always" fw={600}>
                    API keys
                  </Anchor>{" "}
                  page, or ask the gateway&apos;s operator.
                </>
              ) : (
                <>Ask the gateway&apos;s operator for a key in group {groupNames}.</>
              )}
            </Text>
          </Alert>
        )}
      </Stack>
    </Card>
  );
}

export function ModelsPage() {
  const models = useApi<UserModels>("/api/user/models");
  const base = useBaseUrl();
  const [search, setSearch] = useState("");
  const [kind, setKind] = useState<KindFilter>("all");
  const [sort, setSort] = useState<SortOrder>("kind");
  const all = models.data?.data ?? [];
  const shown = filterModels(all, search, kind, sort);
  const keyGroups = models.data?.keyGroups ?? [];
  const openGroups = models.data?.groups ?? [];
  // Group badges say something once more than one group is in play.
  const showGroups = new Set([...openGroups, ...keyGroups]).size > 1;
  return (
    <>
      <PageHeader
        title="Models & pricing"
        description="The models your keys may call, what each costs (per million tokens, per million characters of speech, per minute of transcribed audio), and an example to start from: set GATEWAY_API_KEY to one of your keys first (export GATEWAY_API_KEY=sk-…, from the API keys page). Charges are settled to what a request really used."
      />
      <Card withBorder radius="lg" padding="md" mb="md">
        <ApiBaseUrls />
      </Card>
      {models.error ? <LoadError error={models.error} onRetry={models.reload} /> : null}
      {!models.data ? (
        <Loading />
      ) : all.length === 0 ? (
        <Text c="dimmed">No model is open to your account yet. Ask the gateway&apos;s operator.</Text>
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm" mb="md" role="search" aria-label="Find a model">
            <TextInput
              label="Search"
              placeholder="Model name"
              leftSection={<IconSearch size={16} />}
              value={search}
              onChange={(event) => setSearch(event.currentTarget.value)}
              name="search"
              data-testid="models-search"
            />
            <Select
              label="Kind"
              data={KIND_FILTERS}
              value={kind}
              onChange={(value) => setKind((value as KindFilter | null) ?? "all")}
              allowDeselect={false}
              name="kind"
              data-testid="models-kind"
            />
            <Select
              label="Sort by"
              data={SORTS}
              value={sort}
              onChange={(value) => setSort((value as SortOrder | null) ?? "kind")}
              allowDeselect={false}
              name="sort"
              data-testid="models-sort"
            />
          </SimpleGrid>
          <Text size="sm" c="dimmed" mb="sm" aria-live="polite" data-testid="models-count">
            {shown.length === all.length ? `${all.length} models` : `${shown.length} of ${all.length} models`}
          </Text>
          {shown.length === 0 ? (
            <Text c="dimmed">No model matches. Clear the search or choose another kind.</Text>
          ) : (
            <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
              {shown.map((model) => (
                <ModelCard key={model.id} model={model} base={base} keyGroups={keyGroups} openGroups={openGroups} showGroups={showGroups} />
              ))}
            </SimpleGrid>
          )}
        </>
      )}
    </>
  );
}
