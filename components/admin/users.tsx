"use client";
// Operator: users. Search, add a user, adjust a balance (with a note, recorded in the ledger), disable or enable,
// and change the role.
import { useState, type FormEvent } from "react";
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  EmptyState,
  Group,
  Menu,
  Modal,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import {
  IconCoin,
  IconDots,
  IconListDetails,
  IconMailForward,
  IconSearch,
  IconShieldCheck,
  IconShieldOff,
  IconUserOff,
  IconUserPlus,
  IconUsers,
  IconUserCheck,
} from "@tabler/icons-react";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import { dateOnly, usd, usdToMicros } from "@/lib/portal/format";
import type { AdminUser } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { FormError, LoadError, Loading, StatusBadge } from "@/components/feedback";
import { UserDetailDrawer } from "./user-detail";
import { DataTable } from "@/components/data-table";

function AdjustForm({ user, onDone }: { user: AdminUser; onDone: () => void }) {
  const [amount, setAmount] = useState<number | string>("");
  const [note, setNote] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (typeof amount !== "number" || amount === 0) {
      setErrors({ fields: { balanceDelta: "Enter an amount: positive adds, negative takes away" }, form: null });
      return;
    }
    setSaving(true);
    try {
      const result = await api<{ balance: number }>(`/api/admin/users/${encodeURIComponent(user.id)}`, {
        method: "PATCH",
        body: { balanceDelta: usdToMicros(amount), ...(note.trim() ? { note: note.trim() } : {}) },
      });
      notifications.show({ color: "teal", title: "Balance adjusted", message: `${user.email} now has ${usd(result.balance)}.` });
      onDone();
    } catch (error) {
      setErrors(formErrors(error, ["balanceDelta", "note"]));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Adjust balance">
      <Stack gap="md">
        <Text size="sm">
          Current balance of <b>{user.email}</b>: {usd(user.balance)}
        </Text>
        <FormError message={errors.form} />
        <NumberInput
          label="Amount"
          description="Positive adds, negative subtracts. In US dollars."
          prefix="$"
          decimalScale={6}
          allowNegative
          value={amount}
          onChange={setAmount}
          error={errors.fields.balanceDelta}
          data-autofocus
          name="amount"
        />
        <TextInput
          label="Note"
          description="Optional, kept with the ledger row."
          maxLength={500}
          value={note}
          onChange={(event) => setNote(event.currentTarget.value)}
          error={errors.fields.note}
          name="note"
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Apply
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function AddUserForm({ onDone }: { onDone: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<string>("user");
  const [quota, setQuota] = useState<number | string>(0);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setErrors(NO_ERRORS);
    try {
      await api("/api/admin/users", { body: { email: email.trim(), password, role, quota: usdToMicros(Number(quota) || 0) } });
      notifications.show({ color: "teal", title: "User added", message: email });
      onDone();
    } catch (error) {
      setErrors(formErrors(error, ["email", "password", "role", "quota"]));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Add a user">
      <Stack gap="md">
        <FormError message={errors.form} />
        <TextInput
          label="Email"
          type="email"
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          error={errors.fields.email}
          data-autofocus
          name="email"
        />
        <PasswordInput
          label="Password"
          description="At least 8 characters. Tell the user to change it."
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          error={errors.fields.password}
          autoComplete="new-password"
          name="password"
        />
        <Select
          label="Role"
          data={["user", "admin"]}
          value={role}
          onChange={(value) => setRole(value ?? "user")}
          allowDeselect={false}
          error={errors.fields.role}
        />
        <NumberInput
          label="Starting balance"
          prefix="$"
          min={0}
          decimalScale={2}
          value={quota}
          onChange={setQuota}
          error={errors.fields.quota}
          name="quota"
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Add user
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function UsersAdmin({ selfId }: { selfId: string }) {
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search, 250);
  const users = useApi<{ data: AdminUser[] }>(
    `/api/admin/users?limit=500${debounced.trim() ? `&q=${encodeURIComponent(debounced.trim())}` : ""}`,
  );
  const [adjusting, setAdjusting] = useState<AdminUser | null>(null);
  const [adding, setAdding] = useState(false);
  const [viewing, setViewing] = useState<AdminUser | null>(null);
  /** A confirmed action: a change to the user (PATCH), or one of the operator tools (POST to a sub-path). */
  const [confirm, setConfirm] = useState<{
    user: AdminUser;
    text: string;
    danger?: boolean;
    change?: { status?: string; role?: string };
    tool?: "reset-2fa" | "send-reset";
    done: string;
  } | null>(null);

  async function apply() {
    if (!confirm) return;
    const target = `/api/admin/users/${encodeURIComponent(confirm.user.id)}`;
    try {
      if (confirm.tool) await api(`${target}/${confirm.tool}`, { method: "POST", body: {} });
      else await api(target, { method: "PATCH", body: confirm.change });
      notifications.show({ color: "teal", title: confirm.done, message: confirm.user.email });
      setConfirm(null);
      await users.reload();
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
        <Card withBorder radius="lg" p={0}>
          <DataTable minWidth={820} verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="users-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Email</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th ta="right">Balance</Table.Th>
                <Table.Th>2FA</Table.Th>
                <Table.Th>Joined</Table.Th>
                <Table.Th w={60}>
                  <span className="visually-hidden">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((user) => (
                <Table.Tr key={user.id}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {user.email}
                    </Text>
                    {user.id === selfId ? (
                      <Text size="xs" c="dimmed">
                        you
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={user.role === "admin" ? "violet" : "gray"} size="sm">
                      {user.role}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={user.status} />
                  </Table.Td>
                  <Table.Td ta="right" fw={500}>
                    {usd(user.balance)}
                  </Table.Td>
                  <Table.Td>
                    {user.totpEnabled ? (
                      <Badge color="teal" variant="light" size="sm">
                        on
                      </Badge>
                    ) : (
                      <Text size="sm" c="dimmed">
                        off
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{dateOnly(user.createdAt)}</Table.Td>
                  <Table.Td>
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <ActionIcon variant="subtle" aria-label={`Actions for ${user.email}`}>
                          <IconDots size={16} />
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item leftSection={<IconListDetails size={16} />} onClick={() => setViewing(user)}>
                          Keys, usage and history
                        </Menu.Item>
                        <Menu.Item leftSection={<IconCoin size={16} />} onClick={() => setAdjusting(user)}>
                          Adjust balance
                        </Menu.Item>
                        <Menu.Item
                          leftSection={<IconMailForward size={16} />}
                          onClick={() =>
                            setConfirm({
                              user,
                              tool: "send-reset",
                              done: "Reset link sent",
                              text: `Mail ${user.email} a link to choose a new password? You will not see the link or the password.`,
                            })
                          }
                        >
                          Send a password reset link
                        </Menu.Item>
                        {user.totpEnabled ? (
                          <Menu.Item
                            color="red"
                            leftSection={<IconShieldOff size={16} />}
                            onClick={() =>
                              setConfirm({
                                user,
                                tool: "reset-2fa",
                                danger: true,
                                done: "Two-factor authentication reset",
                                text: `Turn two-factor authentication off for ${user.email}? Do this only when you have confirmed who is asking (a lost phone). Their sessions end; they sign in with the password and can set 2FA up again.`,
                              })
                            }
                          >
                            Reset two-factor authentication
                          </Menu.Item>
                        ) : null}
                        {user.id !== selfId ? (
                          <>
                            <Menu.Item
                              leftSection={<IconShieldCheck size={16} />}
                              onClick={() =>
                                setConfirm({
                                  user,
                                  change: { role: user.role === "admin" ? "user" : "admin" },
                                  done: "Role changed",
                                  text:
                                    user.role === "admin"
                                      ? `Remove operator rights from ${user.email}?`
                                      : `Make ${user.email} an operator (admin)?`,
                                })
                              }
                            >
                              {user.role === "admin" ? "Remove admin role" : "Make admin"}
                            </Menu.Item>
                            {user.status === "active" ? (
                              <Menu.Item
                                color="red"
                                leftSection={<IconUserOff size={16} />}
                                onClick={() =>
                                  setConfirm({
                                    user,
                                    change: { status: "disabled" },
                                    danger: true,
                                    done: "User disabled",
                                    text: `Disable ${user.email}? Their sessions end and their keys stop working.`,
                                  })
                                }
                              >
                                Disable
                              </Menu.Item>
                            ) : (
                              <Menu.Item
                                leftSection={<IconUserCheck size={16} />}
                                onClick={() =>
                                  setConfirm({
                                    user,
                                    change: { status: "active" },
                                    done: "User enabled",
                                    text: `Enable ${user.email} again?`,
                                  })
                                }
                              >
                                Enable
                              </Menu.Item>
                            )}
                          </>
                        ) : null}
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </DataTable>
        </Card>
      ) : null}

      <UserDetailDrawer user={viewing} onClose={() => setViewing(null)} />
      <Modal opened={adjusting !== null} onClose={() => setAdjusting(null)} title={<Text fw={600}>Adjust balance</Text>} centered>
        {adjusting ? (
          <AdjustForm
            user={adjusting}
            onDone={() => {
              setAdjusting(null);
              void users.reload();
            }}
          />
        ) : null}
      </Modal>
      <Modal opened={adding} onClose={() => setAdding(false)} title={<Text fw={600}>Add a user</Text>} centered>
        {adding ? (
          <AddUserForm
            onDone={() => {
              setAdding(false);
              void users.reload();
            }}
          />
        ) : null}
      </Modal>
      <Modal opened={confirm !== null} onClose={() => setConfirm(null)} title={<Text fw={600}>Please confirm</Text>} centered>
        <Stack gap="md">
          <Text size="sm">{confirm?.text}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(null)}>
              Cancel
            </Button>
            <Button color={confirm?.danger ? "red" : undefined} onClick={() => void apply()}>
              Confirm
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
