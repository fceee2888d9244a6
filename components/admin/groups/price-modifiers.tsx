"use client";
// The price form's modifiers: one row per request field:value with its multiplier, added and removed in place.
import { ActionIcon, Autocomplete, Button, Group, NumberInput, Stack, Text } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import type { PriceValues } from "./price-form";

/** The vendors' own price modifiers, offered as keys (the values that cost more, and flex's discount). */
const MODIFIER_SUGGESTIONS = ["service_tier:priority", "service_tier:scale", "service_tier:flex", "speed:fast", "inference_geo:us"];

export type ModifierRow = { id: number; key: string; multiplier: number | string };

export function PriceModifiers({ form }: { form: UseFormReturnType<PriceValues> }) {
  const rows = form.getValues().modifiers;
  const error = form.errors.modifiers;
  return (
    <Stack gap={6} role="group" aria-labelledby="price-modifiers-label">
      <Text size="sm" fw={500} id="price-modifiers-label">
        Price modifiers
      </Text>
      <Text size="xs" c="dimmed">
        A request field that makes the vendor bill more (or less) for the same tokens, as field:value (service_tier:priority, speed:fast,
        inference_geo:us) or a name from Settings: every token rate times the multiplier. A dearer value without a multiplier here is
        refused; flex without one is charged at the standard rates.
      </Text>
      {rows.map((row, index) => (
        <Group key={row.id} gap="xs" wrap="nowrap" align="flex-start" data-testid="price-modifier">
          <Autocomplete
            aria-label={`Modifier ${index + 1}`}
            placeholder="service_tier:priority"
            data={MODIFIER_SUGGESTIONS}
            value={row.key}
            onChange={(key) => form.setFieldValue(`modifiers.${index}.key`, key)}
            style={{ flex: 1, minWidth: 0 }}
            name={`modifier-${index}`}
          />
          <NumberInput
            aria-label={`Multiplier of modifier ${index + 1}`}
            prefix="×"
            min={0}
            max={100}
            decimalScale={4}
            value={row.multiplier}
            onChange={(multiplier) => form.setFieldValue(`modifiers.${index}.multiplier`, multiplier)}
            w={104}
            name={`multiplier-${index}`}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            size="lg"
            aria-label={`Remove modifier ${row.key || index + 1}`}
            onClick={() => form.removeListItem("modifiers", index)}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      {error ? (
        <Text size="xs" c="red" role="alert">
          {error}
        </Text>
      ) : null}
      <Group>
        <Button
          variant="light"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() =>
            form.insertListItem("modifiers", { id: Math.max(-1, ...rows.map((other) => other.id)) + 1, key: "", multiplier: "" })
          }
        >
          Add modifier
        </Button>
      </Group>
    </Stack>
  );
}

/** The rows with a key, each with a multiplier above 0; otherwise the message for the first that has none. */
export function checkModifiers(rows: ModifierRow[]): string | null {
  const unpriced = rows.find((row) => row.key.trim() !== "" && (typeof row.multiplier !== "number" || row.multiplier <= 0));
  return unpriced ? `Give ${unpriced.key.trim()} a multiplier above 0, or remove it.` : null;
}

/** {field:value: multiplier} of the rows with a key (checked by `checkModifiers` first). */
export function modifiersBody(rows: ModifierRow[]): Record<string, number | string> {
  return Object.fromEntries(rows.filter((row) => row.key.trim() !== "").map((row) => [row.key.trim(), row.multiplier]));
}
