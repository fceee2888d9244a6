"use client";
// The prices of one model on the Models & pricing page, in the unit its kind is billed by (docs/billing.md): text per
// 1M tokens in and out, images per 1M tokens and per image, embeddings per 1M input tokens, speech per 1M characters,
// transcription per minute of audio (billed by the second). Prices are written by lib/portal/money-format.ts: every
// digit down to the micro-dollar, at least two decimals ("$2.50", "$0.04116"; docs/decisions/0030-amounts.md).
import { SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { count } from "@/lib/portal/format";
import { formatPrice, formatPriceMicros } from "@/lib/portal/money-format";
import type { UserModel } from "@/lib/portal/types";

/** USD per 1M units as people read it: "$1.25". */
export const perMillion = formatPrice;

/** A transcription price (USD per 1M seconds, so micro-USD per second) as micro-USD per minute. */
export const microsPerMinute = (audioInputSecond: number) => audioInputSecond * 60;

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

function ImagePrices({ model }: { model: UserModel }) {
  const { price } = model;
  return (
    <>
      <SimpleGrid cols={{ base: 2, xs: 3 }} spacing="xs">
        <Fact label="Prompt text, per 1M tokens" value={perMillion(price.textInput)} />
        <Fact label="Input images, per 1M tokens" value={perMillion(price.imageInput)} />
        <Fact label="Output image, per 1M tokens" value={perMillion(price.imageOutput)} />
      </SimpleGrid>
      {/* Fixed layout at the card's width: four equal columns fit a phone's card (390 px) without scrolling. */}
      <Table
        layout="fixed"
        w="100%"
        fz={{ base: "xs", xs: "sm" }}
        verticalSpacing={4}
        horizontalSpacing={4}
        data-testid="image-prices"
        captionSide="bottom"
      >
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
          {(model.imagePrices ?? []).map((row) => (
            <Table.Tr key={row.size}>
              <Table.Td>{row.size}</Table.Td>
              <Table.Td ta="right">{formatPriceMicros(row.low)}</Table.Td>
              <Table.Td ta="right">{formatPriceMicros(row.medium)}</Table.Td>
              <Table.Td ta="right">{formatPriceMicros(row.high)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}

function TextPrices({ model }: { model: UserModel }) {
  const { price } = model;
  return (
    <SimpleGrid cols={{ base: 2, xs: 4 }} spacing="xs">
      <Fact label="Input, per 1M tokens" value={perMillion(price.textInput)} />
      <Fact label="Output, per 1M tokens" value={perMillion(price.textOutput)} />
      <Fact label="Context window" value={`${count(model.contextWindow)} tokens`} />
      <Fact label="Cached input" value={price.cacheRead === 1 ? "full price" : `${perMillion(price.textInput * price.cacheRead)} per 1M`} />
      {price.tier ? (
        <Fact
          label={`Over ${count(price.tier.threshold)} input tokens`}
          value={`${perMillion(price.tier.textInput)} in / ${perMillion(price.tier.textOutput)} out`}
        />
      ) : null}
      {Object.entries(price.toolPrices).map(([tool, micros]) => (
        <Fact key={tool} label={tool.replace(/_/g, " ")} value={`${formatPriceMicros(micros)} per use`} />
      ))}
    </SimpleGrid>
  );
}

export function ModelPrices({ model }: { model: UserModel }) {
  const { price } = model;
  switch (model.kind) {
    case "image":
      return <ImagePrices model={model} />;
    case "embedding":
      return (
        <SimpleGrid cols={{ base: 2, xs: 4 }} spacing="xs" data-testid="model-prices">
          <Fact label="Per 1M input tokens" value={perMillion(price.textInput)} />
          <Fact label="Longest input" value={`${count(model.contextWindow)} tokens`} />
        </SimpleGrid>
      );
    case "speech":
      return (
        <SimpleGrid cols={{ base: 2, xs: 4 }} spacing="xs" data-testid="model-prices">
          <Fact label="Per 1M characters" value={perMillion(price.characterInput)} />
          <Fact label="Longest text" value={`${count(model.contextWindow)} characters`} />
        </SimpleGrid>
      );
    case "transcription":
      return (
        <SimpleGrid cols={{ base: 2, xs: 4 }} spacing="xs" data-testid="model-prices">
          <Fact label="Per minute of audio" value={formatPriceMicros(microsPerMinute(price.audioInputSecond))} />
          <Fact label="Billed" value="by the second" />
        </SimpleGrid>
      );
    default:
      return <TextPrices model={model} />;
  }
}
