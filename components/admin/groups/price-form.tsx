"use client";
// Set a model's price (POST /api/admin/prices): USD per 1M tokens by kind, and its price modifiers.
import { Autocomplete, Button, Group, NumberInput, SimpleGrid, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { ALL_MODELS } from "@/lib/catalog/models";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import type { AdminPrice } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";
import { checkModifiers, modifiersBody, PriceModifiers, type ModifierRow } from "./price-modifiers";

const RATES = [
  ["textInput", "Text input"],
  ["textOutput", "Text output"],
  ["imageInput", "Image input"],
  ["imageOutput", "Image output"],
] as const;

export type PriceValues = {
  model: string;
  textInput: number | string;
  textOutput: number | string;
  imageInput: number | string;
  imageOutput: number | string;
  modifiers: ModifierRow[];
};

export function PriceForm({ price, onDone }: { price: AdminPrice | null; onDone: () => void }) {
  const { form, onSubmit, formError, submitting } = useApiForm<PriceValues>({
    initialValues: {
      model: price?.model ?? "",
      textInput: price?.textInput ?? 0,
      textOutput: price?.textOutput ?? 0,
      imageInput: price?.imageInput ?? 0,
      imageOutput: price?.imageOutput ?? 0,
      modifiers: Object.entries(price?.modifiers ?? {}).map(([key, multiplier], index) => ({ id: index, key, multiplier })),
    },
    validate: { modifiers: checkModifiers },
    submit: (values) =>
      api("/api/admin/prices", {
        body: {
          model: values.model.trim(),
          ...Object.fromEntries(RATES.map(([key]) => [key, Number(values[key]) || 0])),
          modifiers: modifiersBody(values.modifiers),
        },
      }),
    onSuccess: (_result, values) => {
      notifications.show({ color: "teal", title: "Price saved", message: `${values.model}: new requests use it at once.` });
      onDone();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Price">
      <Stack gap="md">
        <FormError message={formError} />
        <Autocomplete label="Model" data={ALL_MODELS} {...form.getInputProps("model")} disabled={Boolean(price)} name="model" />
        <Text size="sm" c="dimmed">
          US dollars per 1 million tokens. A change bumps the price version; requests already reserved keep theirs.
        </Text>
        <SimpleGrid cols={2} spacing="md">
          {RATES.map(([key, label]) => (
            <NumberInput key={key} label={label} prefix="$" min={0} decimalScale={4} {...form.getInputProps(key)} name={key} />
          ))}
        </SimpleGrid>
        <PriceModifiers form={form} />
        <Group justify="flex-end">
          <Button type="submit" loading={submitting}>
            Save price
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
