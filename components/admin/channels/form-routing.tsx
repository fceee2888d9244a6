"use client";
// The channel form's routing section: its priority and weight among the channels serving a model, and on or off.
import { NumberInput, SimpleGrid, Switch } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import type { ChannelValues } from "./values";

export function RoutingSection({ form }: { form: UseFormReturnType<ChannelValues> }) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
      <NumberInput
        label="Priority"
        description="Higher is tried first."
        {...form.getInputProps("priority")}
        min={-1000}
        max={1000}
        name="priority"
      />
      <NumberInput
        label="Weight"
        description="Share among equal priority."
        {...form.getInputProps("weight")}
        min={0}
        max={1000}
        name="weight"
      />
      <Switch label="Enabled" mt={30} {...form.getInputProps("enabled", { type: "checkbox" })} />
    </SimpleGrid>
  );
}
