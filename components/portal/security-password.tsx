"use client";
// The password card of the Security page: change it (current, new, repeated); the API ends the other sessions.
import { Button, Card, Group, PasswordInput, Stack, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconLock } from "@tabler/icons-react";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { dateOnly } from "@/lib/portal/format";
import type { Self } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";

export function PasswordCard({ self }: { self: Self }) {
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { current: "", next: "", confirm: "" },
    validate: {
      current: (value) => (value ? null : "Enter your current password"),
      next: (value) => (value.length < 8 ? "Use at least 8 characters" : null),
      confirm: (value, values) => (value !== values.next ? "The two passwords are not the same" : null),
    },
    submit: (values) => api("/api/user/password", { body: { current: values.current, next: values.next } }),
    onSuccess: (_result, _values, passwordForm) => {
      passwordForm.reset();
      notifications.show({ color: "teal", title: "Password changed", message: "Your other sessions were signed out." });
    },
  });

  return (
    <Card withBorder radius="lg" padding="lg">
      <Group gap="sm" mb="xs" wrap="nowrap">
        <IconLock size={22} />
        <Title order={2} fz="lg">
          Password
        </Title>
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        Last changed {dateOnly(self.passwordChangedAt)}. Changing it signs out your other sessions.
      </Text>
      <form onSubmit={onSubmit} noValidate aria-label="Change password">
        <Stack gap="sm" maw={420}>
          <FormError message={formError} />
          <PasswordInput label="Current password" autoComplete="current-password" {...form.getInputProps("current")} name="current" />
          <PasswordInput
            label="New password"
            description="At least 8 characters."
            autoComplete="new-password"
            {...form.getInputProps("next")}
            name="next"
          />
          <PasswordInput label="Repeat the new password" autoComplete="new-password" {...form.getInputProps("confirm")} name="confirm" />
          <Group>
            <Button type="submit" variant="default" loading={submitting}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
