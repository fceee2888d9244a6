"use client";
// The Groups tab: one row per group with its models and rate limit.
import { ActionIcon, Badge, Card, EmptyState, Group, Table, Text, Tooltip } from "@mantine/core";
import { IconEdit, IconUsersGroup } from "@tabler/icons-react";
import type { AdminGroup } from "@/lib/portal/types";
import { DataTable } from "@/components/data-table";

export function GroupsTable({ groups, onEdit }: { groups: AdminGroup[]; onEdit: (group: AdminGroup) => void }) {
  if (groups.length === 0)
    return (
      <Card withBorder radius="lg" py={48}>
        <EmptyState
          icon={<IconUsersGroup size={28} />}
          variant="light"
          title="No groups"
          description="Create a group to give keys access to models."
        />
      </Card>
    );
  return (
    <Card withBorder radius="lg" p={0}>
      <DataTable minWidth={640} verticalSpacing="sm" horizontalSpacing="md" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Group</Table.Th>
            <Table.Th>Models</Table.Th>
            <Table.Th>Rate limit</Table.Th>
            <Table.Th w={60}>
              <span className="visually-hidden">Actions</span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {groups.map((entry) => (
            <Table.Tr key={entry.id}>
              <Table.Td fw={600}>{entry.name}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="wrap">
                  {entry.models.length ? (
                    entry.models.map((model) => (
                      <Badge key={model} variant="outline" color="gray" size="xs" tt="none">
                        {model}
                      </Badge>
                    ))
                  ) : (
                    <Text size="sm" c="dimmed">
                      none
                    </Text>
                  )}
                </Group>
              </Table.Td>
              <Table.Td>
                {entry.rateLimitPerMinute ? (
                  `${entry.rateLimitPerMinute}/min per key`
                ) : (
                  <Text size="sm" c="dimmed">
                    none
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Tooltip label="Edit">
                  <ActionIcon variant="subtle" aria-label={`Edit group ${entry.name}`} onClick={() => onEdit(entry)}>
                    <IconEdit size={16} />
                  </ActionIcon>
                </Tooltip>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
    </Card>
  );
}
