"use client";
// The Channels page's table: one row per channel with its models, routing, the on/off switch, the test buttons
// and their results, and the edit and delete buttons.
import { ActionIcon, Badge, Button, Card, Code, Group, Stack, Switch, Table, Text, Tooltip } from "@mantine/core";
import { IconEdit, IconPlayerPlay, IconTrash } from "@tabler/icons-react";
import { relative } from "@/lib/portal/format";
import type { AdminChannel } from "@/lib/portal/types";
import { SimulatorBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";
import { EveryModelResults, TestResult } from "./test-results";
import type { ChannelTests } from "./use-channel-tests";
import { channelTypeLabel } from "./values";

type RowActions = {
  tests: ChannelTests;
  busy: string | null;
  onToggle: (channel: AdminChannel, enabled: boolean) => void;
  onEdit: (channel: AdminChannel) => void;
  onDelete: (channel: AdminChannel) => void;
};

export function ChannelsTable({ channels, ...actions }: { channels: AdminChannel[] } & RowActions) {
  return (
    <Card withBorder radius="lg" p={0}>
      <DataTable minWidth={940} verticalSpacing="sm" horizontalSpacing="sm" highlightOnHover data-testid="channels-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Channel</Table.Th>
            <Table.Th>Models</Table.Th>
            <Table.Th ta="center">Priority</Table.Th>
            <Table.Th ta="center">Weight</Table.Th>
            <Table.Th>Enabled</Table.Th>
            <Table.Th>Test</Table.Th>
            <Table.Th w={90}>
              <span className="visually-hidden">Actions</span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {channels.map((channel) => (
            <ChannelRow key={channel.id} channel={channel} {...actions} />
          ))}
        </Table.Tbody>
      </DataTable>
    </Card>
  );
}

function ChannelRow({ channel, tests, busy, onToggle, onEdit, onDelete }: { channel: AdminChannel } & RowActions) {
  const every = tests.every[channel.id];
  return (
    <Table.Tr data-testid="channel-row">
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Text fw={600} size="sm">
            {channel.name}
          </Text>
          {channel.type === "simulator" ? <SimulatorBadge size="xs" /> : null}
        </Group>
        <Text size="xs" c="dimmed">
          {channelTypeLabel(channel.type)}
          {channel.baseUrl ? (
            <>
              {" · "}
              <Code fz="xs">{channel.baseUrl}</Code>
            </>
          ) : null}
        </Text>
      </Table.Td>
      <Table.Td>
        <Tooltip label={channel.models.join(", ")} multiline w={320}>
          <Group gap={4} wrap="wrap" maw={280}>
            {channel.models.slice(0, 3).map((model) => (
              <Badge key={model} variant="outline" color="gray" size="xs" tt="none">
                {model}
              </Badge>
            ))}
            {channel.models.length > 3 ? (
              <Badge size="xs" variant="light">
                +{channel.models.length - 3}
              </Badge>
            ) : null}
          </Group>
        </Tooltip>
      </Table.Td>
      <Table.Td ta="center">{channel.priority}</Table.Td>
      <Table.Td ta="center">{channel.weight}</Table.Td>
      <Table.Td>
        <Switch
          checked={channel.status === "enabled"}
          onChange={(event) => onToggle(channel, event.currentTarget.checked)}
          disabled={busy === channel.id}
          aria-label={`${channel.status === "enabled" ? "Disable" : "Enable"} ${channel.name}`}
        />
        {channel.disabledReason ? (
          <Text size="xs" c="red" maw={200} lineClamp={2} title={channel.disabledReason}>
            {channel.disabledReason}
          </Text>
        ) : (
          <Text size="xs" c="dimmed">
            changed {relative(channel.updatedAt)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Stack gap={4} align="flex-start">
          <Button
            size="compact-xs"
            variant="light"
            leftSection={<IconPlayerPlay size={12} />}
            onClick={() => void tests.test(channel)}
            loading={tests.tests[channel.id] === "running"}
            aria-label={`Test ${channel.name}`}
          >
            Test
          </Button>
          <TestResult result={tests.tests[channel.id]} />
          {channel.models.length > 1 ? (
            <Button
              size="compact-xs"
              variant="subtle"
              onClick={() => void tests.testEvery(channel)}
              aria-label={`Test every model of ${channel.name}`}
            >
              Test every model
            </Button>
          ) : null}
          {every ? <EveryModelResults results={every} total={channel.models.length} /> : null}
        </Stack>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Tooltip label="Edit">
            <ActionIcon variant="subtle" aria-label={`Edit ${channel.name}`} onClick={() => onEdit(channel)}>
              <IconEdit size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Delete">
            <ActionIcon variant="subtle" color="red" aria-label={`Delete ${channel.name}`} onClick={() => onDelete(channel)}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
