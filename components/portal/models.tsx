"use client";
// Models & pricing: what the signed-in person may call, where, and what it costs (GET /api/user/models, computed
// with the gateway's own billing functions), each with a copyable example that works as pasted once
// $GATEWAY_API_KEY holds one of their keys.
import { Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { useApi } from "@/lib/portal/api";
import { MESSAGE_MODELS, splitLongContext } from "@/lib/catalog/models";
import { count, usdPrecise } from "@/lib/portal/format";
import type { ModelSource } from "@/lib/portal/server";
import { PageHeader } from "@/components/page-header";
import { CopyField, LoadError, Loading, SimulatorBadge } from "@/components/feedback";
import { ApiBaseUrls, useBaseUrl } from "@/components/base-url";

export type UserModel = {
  id: string;
  displayName: string;
  kind: "text" | "image";
  endpoints: string[];
  contextWindow: number;
  maxOutputTokens: number;
  groups: string[];
  source: ModelSource | null;
  price: {
    textInput: number;
    textOutput: number;
    imageInput: number;
    imageOutput: number;
    cacheRead: number;
    cacheWrite: number;
    tier: { threshold: number; textInput: number; textOutput: number } | null;
    toolPrices: Record<string, number>;
  };
  imagePrices: ({ size: string } & Record<"low" | "medium" | "high", number>)[] | null;
};

/** USD per 1M tokens as people read it: "$1.25". */
const perMillion = (value: number) => `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`;

function example(model: UserModel, base: string): string {
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

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500}>
        {value}
      </Text>
    </Stack>
  );
}

function ModelCard({ model, base }: { model: UserModel; base: string }) {
  const { price } = model;
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
        {model.kind === "image" ? (
          <>
            <SimpleGrid cols={{ base: 2, xs: 3 }} spacing="xs">
              <Fact label="Prompt text, per 1M tokens" value={perMillion(price.textInput)} />
              <Fact label="Input images, per 1M tokens" value={perMillion(price.imageInput)} />
              <Fact label="Output image, per 1M tokens" value={perMillion(price.imageOutput)} />
            </SimpleGrid>
            <Table verticalSpacing={4} horizontalSpacing="xs" data-testid="image-prices" captionSide="bottom">
              <Table.Caption>Per image, output only; the prompt adds a few text tokens.</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Size</Table.Th>
                  <Table.Th ta="right">low</Table.Th>
                  <Table.Th ta="right">medium</Table.Th>
                  <Table.Th ta="right">high</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {model.imagePrices!.map((row) => (
                  <Table.Tr key={row.size}>
                    <Table.Td>{row.size}</Table.Td>
                    <Table.Td ta="right">{usdPrecise(row.low)}</Table.Td>
                    <Table.Td ta="right">{usdPrecise(row.medium)}</Table.Td>
                    <Table.Td ta="right">{usdPrecise(row.high)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </>
        ) : (
          <SimpleGrid cols={{ base: 2, xs: 4 }} spacing="xs">
            <Fact label="Input, per 1M tokens" value={perMillion(price.textInput)} />
            <Fact label="Output, per 1M tokens" value={perMillion(price.textOutput)} />
            <Fact label="Context window" value={`${count(model.contextWindow)} tokens`} />
            <Fact
              label="Cached input"
              value={price.cacheRead === 1 ? "full price" : `${perMillion(price.textInput * price.cacheRead)} per 1M`}
            />
            {price.tier ? (
              <Fact
                label={`Over ${count(price.tier.threshold)} input tokens`}
                value={`${perMillion(price.tier.textInput)} in / ${perMillion(price.tier.textOutput)} out`}
              />
            ) : null}
            {Object.entries(price.toolPrices).map(([tool, micros]) => (
              <Fact key={tool} label={tool.replace(/_/g, " ")} value={`${usdPrecise(micros)} per use`} />
            ))}
          </SimpleGrid>
        )}
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
        description="The models your keys may call, what each costs per million tokens, and an example to start from. Charges are settled to what a request really used."
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
