"use client";
// Add a user (POST /api/admin/users): email, a first password, role and starting balance.
import { Button, Group, NumberInput, PasswordInput, Select, Stack, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { usdToMicros } from "@/lib/portal/format";
import { FormError } from "@/components/feedback";

export function AddUserForm({ onDone }: { onDone: () => void }) {
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { email: "", password: "", role: "user", quota: 0 as number | string },
    submit: (values) =>
      api("/api/admin/users", {
        body: { email: values.email.trim(), password: values.password, role: values.role, quota: usdToMicros(Number(values.quota) || 0) },
      }),
    onSuccess: (_result, values) => {
      notifications.show({ color: "teal", title: "User added", message: values.email });
      onDone();
    },
  });
  const roleProps = form.getInputProps("role");

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add a user">
      <Stack gap="md">
        <FormError message={formError} />
        <TextInput label="Email" type="email" {...form.getInputProps("email")} data-autofocus name="email" />
        <PasswordInput
          label="Password"
          description="At least 8 characters. Tell the user to change it."
          {...form.getInputProps("password")}
          autoComplete="new-password"
          name="password"
        />
        <Select
          label="Role"
          data={["user", "admin"]}
          {...roleProps}
          onChange={(value) => roleProps.onChange(value ?? "user")}
          allowDeselect={false}
        />
        <NumberInput label="Starting balance" prefix="$" min={0} decimalScale={2} {...form.getInputProps("quota")} name="quota" />
        <Group justify="flex-end">
          <Button type="submit" loading={submitting}>
            Add user
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
