"use client";
// Models & pricing: what the signed-in person may call, where, and what it costs in the unit its kind is billed by
// (GET /api/user/models, computed with the gateway's own billing functions; components/portal/model-prices.tsx),
// each with a copyable example that works as pasted once $GATEWAY_API_KEY holds one of their keys.
import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useApi } from "@/lib/portal/api";
import { MESSAGE_MODELS, splitLongContext } from "@/lib/catalog/models";
import type { ModelKind, UserModel } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { CopyField, LoadError, Loading, SimulatorBadge } from "@/components/feedback";
import { ApiBaseUrls, useBaseUrl } from "@/components/base-url";
import { ModelPrices } from "./model-prices";

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

function ModelCard({ model, base }: { model: UserModel; base: string }) {
  return (
    <Card withBorder radius="lg" padding="lg" data-testid="model-card">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Title order={2} fz="md" ff="monospace" style={{ wordBreak: "break-all" }}>
              {model.id}
            </Title>
            <Text size="xs" c="dimmed">
              {model.displayName}
            </Text>
          </Stack>
          <Group gap={4}>
            <Badge size="xs" variant="light" color="indigo" data-testid="model-kind">
              {KIND_LABELS[model.kind]}
            </Badge>
            {model.source === "simulator" ? (
              <SimulatorBadge size="xs" />
            ) : model.source === "mixed" ? (
              <SimulatorBadge size="xs" mixed />
            ) : null}
            {model.endpoints.map((endpoint) => (
              <Badge key={endpoint} size="xs" variant="light" color="gray" tt="none">
                {endpoint}
              </Badge>
            ))}
          </Group>
        </Group>
        <ModelPrices model={model} />
        <CopyField value={example(model, base)} label={`Copy the example for ${model.id}`} testId="model-example" />
      </Stack>
    </Card>
  );
}

export function ModelsPage() {
  const models = useApi<{ data: UserModel[]; groups: string[] }>("/api/user/models");
  const base = useBaseUrl();
  return (
    <>
      <PageHeader
        title="Models & pricing"
        description="The models your keys may call, what each costs (per million tokens, per million characters of speech, per minute of transcribed audio), and an example to start from. Charges are settled to what a request really used."
      />
      <Card withBorder radius="lg" padding="md" mb="md">
        <ApiBaseUrls />
      </Card>
      {models.error ? <LoadError error={models.error} onRetry={models.reload} /> : null}
      {!models.data ? (
        <Loading />
      ) : models.data.data.length === 0 ? (
        <Text c="dimmed">No model is open to your account yet. Ask the gateway&apos;s operator.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
          {models.data.data.map((model) => (
            <ModelCard key={model.id} model={model} base={base} />
          ))}
        </SimpleGrid>
      )}
    </>
  );
}
