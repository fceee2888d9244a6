"use client";
// The Preset select of an `openai` channel: a known OpenAI-compatible service (lib/portal/channel-presets.ts) fills
// the base URL, the name when it is empty (or another preset's), and the settings the service needs. The select
// shows the preset whose base URL is in the form, so editing the URL by hand leaves it.
import { Select } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { CHANNEL_PRESETS, presetById, presetForBaseUrl, withPresetSettings } from "@/lib/portal/channel-presets";
import { type ChannelValues, parseSettings } from "./values";

const CHOICES = CHANNEL_PRESETS.map((preset) => ({ value: preset.id, label: preset.label }));

export function PresetSelect({ form }: { form: UseFormReturnType<ChannelValues> }) {
  const values = form.getValues();
  const current = presetForBaseUrl(values.baseUrl);

  function choose(id: string | null) {
    const preset = presetById(id);
    if (!preset) return;
    const now = form.getValues();
    const name = now.name.trim();
    if (!name || CHANNEL_PRESETS.some((other) => other.label === name)) form.setFieldValue("name", preset.label);
    form.setFieldValue("baseUrl", preset.baseUrl);
    const settings = parseSettings(now.settings);
    if (settings) form.setFieldValue("settings", JSON.stringify(withPresetSettings(settings, preset), null, 2));
  }

  return (
    <Select
      label="Preset"
      description={current?.note ?? "A known OpenAI-compatible service: fills in its base URL and the settings it needs."}
      placeholder="None: any OpenAI-compatible API"
      data={CHOICES}
      value={current?.id ?? null}
      onChange={choose}
      allowDeselect={false}
      name="preset"
    />
  );
}
