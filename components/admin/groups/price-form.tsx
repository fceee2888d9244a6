"use client";
// Set a model's price (POST /api/admin/prices): USD per 1M tokens by kind, and its price modifiers. A speech model
// also has its rate per 1M characters, a transcription model its rate per 1M seconds of audio (docs/billing.md,
// "Audio"); a model of another kind shows them only when they are set.
import { Button, Group, NumberInput, SimpleGrid, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import type { AdminPrice } from "@/lib/portal/types";
import { formatPriceMicros } from "@/lib/portal/money-format";
import { FormError } from "@/components/feedback";
import { ModelPicker } from "@/components/admin/model-picker";
import { checkModifiers, modifiersBody, PriceModifiers, type ModifierRow } from "./price-modifiers";

const RATES = [
  ["textInput", "Text input"],
  ["textOutput", "Text output"],
  ["imageInput", "Image input"],
  ["imageOutput", "Image output"],
] as const;

/** The rates billed by something other than tokens, with the kind of model each belongs to. */
const AUDIO_RATES = [
  ["characterInput", "Speech, per 1M characters", "speech"],
  ["audioInputSecond", "Transcription, per 1M seconds of audio", "transcription"],
] as const;
export type AudioRate = (typeof AUDIO_RATES)[number][0];

/**
 * The audio rates that apply to a model: the one of its kind (from the catalog), and any already set (an operator's
 * model the catalog calls text may still have one).
 */
export function audioRates(kind: string | undefined, price: Pick<AdminPrice, AudioRate> | null): AudioRate[] {
  return AUDIO_RATES.filter(([key, , of]) => kind === of || (price?.[key] ?? 0) > 0).map(([key]) => key);
}

export type PriceValues = {
  model: string;
  textInput: number | string;
  textOutput: number | string;
  imageInput: number | string;
  imageOutput: number | string;
  characterInput: number | string;
  audioInputSecond: number | string;
  modifiers: ModifierRow[];
};

export function PriceForm({
  price,
  kinds,
  model,
  onDone,
}: {
  price: AdminPrice | null;
  kinds: Record<string, string>;
  /** The model a new price is for, when the page was opened for one (a channel's "add a price"). */
  model?: string;
  onDone: () => void;
}) {
  const shown = (model: string) => audioRates(kinds[model.trim()], price);
  const { form, onSubmit, formError, submitting } = useApiForm<PriceValues>({
    initialValues: {
      model: price?.model ?? model ?? "",
      textInput: price?.textInput ?? 0,
      textOutput: price?.textOutput ?? 0,
      imageInput: price?.imageInput ?? 0,
      imageOutput: price?.imageOutput ?? 0,
      characterInput: price?.characterInput ?? 0,
      audioInputSecond: price?.audioInputSecond ?? 0,
      modifiers: Object.entries(price?.modifiers ?? {}).map(([key, multiplier], index) => ({ id: index, key, multiplier })),
    },
    validate: { modifiers: checkModifiers },
    submit: (values) =>
      api("/api/admin/prices", {
        body: {
          model: values.model.trim(),
          ...Object.fromEntries(RATES.map(([key]) => [key, Number(values[key]) || 0])),
          // Only the audio rates on show: one hidden is left as it is.
          ...Object.fromEntries(shown(values.model).map((key) => [key, Number(values[key]) || 0])),
          modifiers: modifiersBody(values.modifiers),
        },
      }),
    onSuccess: (_result, values) => {
      notifications.show({ color: "teal", title: "Price saved", message: `${values.model}: new requests use it at once.` });
      onDone();
    },
  });

  const values = form.getValues();
  const seconds = Number(values.audioInputSecond) || 0;

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Price">
      <Stack gap="md">
        <FormError message={formError} />
        <ModelPicker
          label="Model"
          description="Every model known: the catalog's and every channel's. Type to search, or a new name."
          {...form.getInputProps("model")}
          disabled={Boolean(price)}
          name="model"
        />
        <Text size="sm" c="dimmed">
          US dollars per 1 million tokens. A change bumps the price version; requests already reserved keep theirs.
        </Text>
        <SimpleGrid cols={2} spacing="md">
          {RATES.map(([key, label]) => (
            <NumberInput key={key} label={label} prefix="$" min={0} decimalScale={4} {...form.getInputProps(key)} name={key} />
          ))}
          {AUDIO_RATES.filter(([key]) => shown(values.model).includes(key)).map(([key, label]) => (
            <NumberInput
              key={key}
              label={label}
              description={key === "audioInputSecond" ? `${formatPriceMicros(seconds * 60)} a minute` : "Unicode characters of the input"}
              prefix="$"
              min={0}
              decimalScale={4}
              {...form.getInputProps(key)}
              name={key}
            />
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
