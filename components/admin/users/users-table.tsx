"use client";
// The Users page's table: email, role, status, balance, 2FA, joined, and each row's actions menu; a row (its email, a
// button) opens the user's detail.
import { Badge, Card, Table, Text, UnstyledButton } from "@mantine/core";
import { dateOnly, usd } from "@/lib/portal/format";
import type { AdminUser } from "@/lib/portal/types";
import { StatusBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";
import { UserActions, type UserActionHandlers } from "./user-actions";

export function UsersTable({ users, selfId, ...handlers }: { users: AdminUser[]; selfId: string } & UserActionHandlers) {
  return (
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
          {users.map((user) => (
            <Table.Tr
              key={user.id}
              data-testid="user-row"
              style={{ cursor: "pointer" }}
              // A click anywhere on the row opens the user (the email is the keyboard's way in); the actions menu does not.
              onClick={(event) => {
                if (!(event.target as HTMLElement).closest("button, a, [role=menu]")) handlers.onView(user);
              }}
            >
              <Table.Td>
                <UnstyledButton fz="sm" fw={500} td="underline" onClick={() => handlers.onView(user)} aria-label={`Open ${user.email}`}>
                  {user.email}
                </UnstyledButton>
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
                <UserActions user={user} self={user.id === selfId} {...handlers} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
    </Card>
  );
}
