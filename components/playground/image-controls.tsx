"use client";
// Output options of an image request: size (a list of the common sizes, or any other typed and checked against the
// spec's rules as you type), quality, format, compression (only for jpeg and webp) and moderation. Shared by the
// Images, Edit and Responses panels.
import { useState } from "react";
import { Badge, Group, SegmentedControl, Select, Slider, Stack, Text, TextInput } from "@mantine/core";
import { checkImageSize, COMMON_SIZES } from "@/lib/images/size";
import type { ImageSettings, OutputFormat, Quality } from "@/lib/portal/playground";

/** The size list's entry that opens a field for any other size. */
const CUSTOM = "custom";
const SIZE_CHOICES = [...COMMON_SIZES.map((size) => ({ value: size, label: size })), { value: CUSTOM, label: "Custom size…" }];

/** The live verdict on a size: null when it is fine. */
export function sizeProblem(size: string): string | null {
  if (!size.trim()) return "Enter a size such as 1024x1024, or auto";
  const check = checkImageSize(size.trim());
  return check.ok ? null : check.message.replace(/^Invalid size '[^']*': /, "").replace(/^./, (first) => first.toUpperCase());
}

export function ImageControls({
  value,
  onChange,
  serverErrors = {},
}: {
  value: ImageSettings;
  onChange: (next: ImageSettings) => void;
  serverErrors?: Record<string, string>;
}) {
  const set = (change: Partial<ImageSettings>) => onChange({ ...value, ...change });
  const problem = sizeProblem(value.size);
  const check = problem ? null : checkImageSize(value.size.trim());
  const compressible = value.format !== "png";
  // A size typed by hand stays in its field even when it happens to be one of the listed sizes.
  const [custom, setCustom] = useState(() => !(COMMON_SIZES as readonly string[]).includes(value.size.trim()));
  const sizeDescription = check?.ok ? (
    <Group gap={6} component="span">
      <span>
        {check.auto
          ? "auto: the model picks (1024×1024 here)"
          : `${check.width}×${check.height} px · ${((check.width * check.height) / 1_000_000).toFixed(2)} MP`}
      </span>
      {check.experimental ? (
        <Badge size="xs" color="orange" variant="light" component="span">
          experimental above 2560×1440
        </Badge>
      ) : null}
    </Group>
  ) : (
    "WIDTHxHEIGHT: multiples of 16, longest side ≤ 3840, at most 3:1"
  );

  return (
    <Stack gap="md">
      <Stack gap={4}>
        {/* A list, not a filter: every size is offered whatever is chosen; "Custom size…" opens a field for any other. */}
        <Select
          label="Size"
          description={custom ? undefined : sizeDescription}
          data={SIZE_CHOICES}
          value={custom ? CUSTOM : value.size.trim()}
          onChange={(choice) => {
            if (!choice) return;
            if (choice === CUSTOM) setCustom(true);
            else {
              setCustom(false);
              set({ size: choice });
            }
          }}
          allowDeselect={false}
          // The nine entries fit without a scroll area (whose focusable viewport a listbox may not hold).
          withScrollArea={false}
          error={custom ? undefined : serverErrors.size}
          data-testid="size-input"
        />
        {custom ? (
          <TextInput
            label="Custom size"
            description={sizeDescription}
            placeholder="1280x720"
            value={value.size}
            onChange={(event) => set({ size: event.currentTarget.value })}
            error={problem ?? serverErrors.size}
            spellCheck={false}
            autoComplete="off"
            name="size"
            data-testid="custom-size"
          />
        ) : null}
      </Stack>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="quality-label">
          Quality
        </Text>
        <SegmentedControl
          aria-labelledby="quality-label"
          fullWidth
          data={["low", "medium", "high", "auto"]}
          value={value.quality}
          onChange={(quality) => set({ quality: quality as Quality })}
        />
        {serverErrors.quality ? (
          <Text c="red" size="xs">
            {serverErrors.quality}
          </Text>
        ) : null}
      </Stack>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="format-label">
          Format
        </Text>
        <SegmentedControl
          aria-labelledby="format-label"
          fullWidth
          data={["png", "jpeg", "webp"]}
          value={value.format}
          onChange={(format) => set({ format: format as OutputFormat })}
        />
        {serverErrors.output_format ? (
          <Text c="red" size="xs">
            {serverErrors.output_format}
          </Text>
        ) : null}
      </Stack>
      <Stack gap={4}>
        <Group justify="space-between">
          <Text size="sm" fw={500} id="compression-label" c={compressible ? undefined : "dimmed"}>
            Compression
          </Text>
          <Text size="sm" c="dimmed">
            {compressible ? `${value.compression}%` : "jpeg and webp only"}
          </Text>
        </Group>
        <Slider
          aria-labelledby="compression-label"
          thumbLabel="Compression"
          min={0}
          max={100}
          step={1}
          value={value.compression}
          onChange={(compression) => set({ compression })}
          disabled={!compressible}
          marks={[{ value: 0 }, { value: 50 }, { value: 100 }]}
          label={(compression) => `${compression}%`}
          data-testid="compression-slider"
        />
        {serverErrors.output_compression ? (
          <Text c="red" size="xs">
            {serverErrors.output_compression}
          </Text>
        ) : null}
      </Stack>
      <Select
        label="Moderation"
        data={[
          { value: "auto", label: "auto: standard filtering" },
          { value: "low", label: "low: less strict" },
        ]}
        value={value.moderation}
        onChange={(moderation) => set({ moderation: (moderation ?? "auto") as "auto" | "low" })}
        allowDeselect={false}
        error={serverErrors.moderation}
      />
    </Stack>
  );
}
