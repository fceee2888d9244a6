"use client";
// Operator: users. Search, add a user, adjust a balance (with a note, recorded in the ledger), disable or enable,
// and change the role. The forms, the table and its actions menu are in components/admin/users/.
import { useState } from "react";
import { Button, Card, EmptyState, Group, Modal, Stack, Text, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { IconSearch, IconUserPlus, IconUsers } from "@tabler/icons-react";
import { api, useApi, useRefresh } from "@/lib/portal/api";
import type { AdminUser } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { UserDetailDrawer } from "./user-detail";
import { AddUserForm } from "./users/add-user-form";
import { AdjustForm } from "./users/adjust-form";
import type { ConfirmRequest } from "./users/user-actions";
import { UsersTable } from "./users/users-table";

/** What a change to a user shows up in: the user lists, the drawer's ledger rows and its audit trail. */
const CHANGED_BY_A_USER_EDIT = ["/api/admin/users", "/api/admin/usage", "/api/admin/audit"];

export function UsersAdmin({ selfId }: { selfId: string }) {
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search, 250);
  const users = useApi<{ data: AdminUser[] }>(
    `/api/admin/users?limit=500${debounced.trim() ? `&q=${encodeURIComponent(debounced.trim())}` : ""}`,
  );
  const refresh = useRefresh();
  const [adjusting, setAdjusting] = useState<AdminUser | null>(null);
  const [adding, setAdding] = useState(false);
  const [viewing, setViewing] = useState<AdminUser | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);

  async function apply() {
    if (!confirm) return;
    const target = `/api/admin/users/${encodeURIComponent(confirm.user.id)}`;
    try {
      const answer = confirm.tool
        ? await api<{ mailOff?: boolean }>(`${target}/${confirm.tool}`, { method: "POST", body: {} })
        : await api(target, { method: "PATCH", body: confirm.change });
      // Without SMTP the mail to the user (a reset link, a notice) is only in the outbox: the operator passes it on.
      const mailOff = Boolean((answer as { mailOff?: boolean } | null)?.mailOff);
      notifications.show({
        color: mailOff ? "orange" : "teal",
        title: confirm.done,
        message: mailOff
          ? `${confirm.user.email}: mail is off on this gateway, so the message to them waits in the Email outbox. Pass it on yourself.`
          : confirm.user.email,
      });
      setConfirm(null);
      await refresh(...CHANGED_BY_A_USER_EDIT);
    } catch (error) {
      notifications.show({ color: "red", title: "That did not work", message: (error as Error).message });
    }
  }

  const list = users.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone with an account. Disabling a user ends their sessions and stops their keys."
        actions={
          <Button leftSection={<IconUserPlus size={16} />} onClick={() => setAdding(true)}>
            Add user
          </Button>
        }
      />
      <TextInput
        placeholder="Search by email"
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        mb="md"
        maw={360}
        aria-label="Search users by email"
      />
      {users.error ? <LoadError error={users.error} onRetry={users.reload} /> : null}
      {users.loading && !users.data ? (
        <Loading />
      ) : users.data && list.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState icon={<IconUsers size={28} />} variant="light" title={debounced ? "No user matches" : "No users yet"} />
        </Card>
      ) : users.data ? (
        <UsersTable users={list} selfId={selfId} onView={setViewing} onAdjust={setAdjusting} onConfirm={setConfirm} />
      ) : null}

      <UserDetailDrawer user={viewing} onClose={() => setViewing(null)} />
      <Modal opened={adjusting !== null} onClose={() => setAdjusting(null)} title={<Text fw={600}>Adjust balance</Text>} centered>
        {adjusting ? (
          <AdjustForm
            user={adjusting}
            onDone={() => {
              setAdjusting(null);
              void refresh(...CHANGED_BY_A_USER_EDIT);
            }}
          />
        ) : null}
      </Modal>
      <Modal opened={adding} onClose={() => setAdding(false)} title={<Text fw={600}>Add a user</Text>} centered>
        {adding ? (
          <AddUserForm
            onDone={() => {
              setAdding(false);
              void refresh("/api/admin/users");
            }}
          />
        ) : null}
      </Modal>
      <Modal
        opened={confirm !== null}
        onClose={() => setConfirm(null)}
        title={<Text fw={600}>{confirm?.title ?? "Please confirm"}</Text>}
        centered
      >
        <Stack gap="md">
          <Text size="sm">{confirm?.text}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(null)}>
              Cancel
            </Button>
            <Button color={confirm?.danger ? "red" : undefined} onClick={() => void apply()}>
              {confirm?.confirmLabel ?? "Confirm"}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
