"use client";
// The table of the user's keys: name, prefix, group and models, spent, remaining, expiry, last use, status, and
// the row's actions (edit, pause or resume, revoke), which the page carries out.
import { ActionIcon, Badge, Card, Code, Group, Table, Text, Tooltip } from "@mantine/core";
import { IconPencil, IconPlayerPause, IconPlayerPlay, IconTrash } from "@tabler/icons-react";
import { dateOnly, relative, usd, usdExact, usdPrecise } from "@/lib/portal/format";
import type { ApiKey } from "@/lib/portal/types";
import { LEGACY_PLAYGROUND_KEY_NAME } from "@/lib/portal/playground-key";
import { KeyStatus, SetByOperator } from "@/components/key-state";
import { DataTable } from "@/components/data-table";

const PERIOD_WORD: Record<string, string> = { day: "a day", week: "a week", month: "a month" };

export function KeysTable({
  list,
  onEdit,
  onPause,
  onRevoke,
}: {
  list: ApiKey[];
  onEdit: (key: ApiKey) => void;
  onPause: (key: ApiKey, paused: boolean) => void;
  onRevoke: (key: ApiKey) => void;
}) {
  return (
    <Card withBorder radius="lg" p={0}>
      <DataTable minWidth={1000} verticalSpacing="sm" horizontalSpacing="sm" highlightOnHover data-testid="keys-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th>Group / models</Table.Th>
            <Table.Th>Spent</Table.Th>
            <Table.Th>Remaining</Table.Th>
            <Table.Th>Budget</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th>Last used</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th w={60}>
              <span className="visually-hidden">Actions</span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((key) => (
            <Table.Tr key={key.id} data-testid="key-row">
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Text size="sm" fw={500}>
                    {key.name || (
                      <Text span c="dimmed" size="sm">
                        Unnamed
                      </Text>
                    )}
                  </Text>
                  {key.purpose === "playground" || key.name === LEGACY_PLAYGROUND_KEY_NAME ? (
                    // Never narrower than its word (a badge otherwise shrinks to "P…" in a tight cell).
                    <Badge size="xs" variant="light" color="violet" style={{ minWidth: "max-content" }}>
                      playground
                    </Badge>
                  ) : null}
                </Group>
              </Table.Td>
              <Table.Td>
                <Code>{key.prefix}…</Code>
              </Table.Td>
              <Table.Td>
                <Badge variant="outline" color="gray" size="sm" tt="none">
                  {key.group}
                </Badge>
                {key.models?.length ? (
                  <Tooltip label={key.models.join(", ")} multiline w={260}>
                    <Text size="xs" c="dimmed" data-testid="key-models">
                      {key.models.length === 1 ? key.models[0] : `${key.models.length} models`} only
                    </Text>
                  </Tooltip>
                ) : null}
              </Table.Td>
              <Table.Td data-testid="key-spent">{usdPrecise(key.spent ?? 0)}</Table.Td>
              <Table.Td>
                {key.unlimited ? (
                  <Text size="sm" c="dimmed">
                    No limit
                  </Text>
                ) : (
                  <span data-testid="key-remaining">{usdExact(key.quotaRemaining)}</span>
                )}
                {key.quotaByOperator && key.purpose !== "playground" ? (
                  <SetByOperator viewer="owner" testId="key-quota-by-operator" />
                ) : null}
              </Table.Td>
              <Table.Td data-testid="key-budget">
                {key.budget === null ? (
                  <Text size="sm" c="dimmed">
                    None
                  </Text>
                ) : (
                  <>
                    <Text size="sm">
                      {usd(key.budget)} {PERIOD_WORD[key.budgetPeriod]}
                    </Text>
                    <Tooltip label={key.budgetResetsAt ? `Resets ${new Date(key.budgetResetsAt).toLocaleString()}` : ""}>
                      <Text size="xs" c="dimmed" data-testid="key-budget-left">
                        {usdExact(key.budgetLeft ?? 0)} left
                      </Text>
                    </Tooltip>
                    {key.budgetByOperator ? <SetByOperator viewer="owner" testId="key-budget-by-operator" /> : null}
                  </>
                )}
                {key.allowedIps.length ? (
                  <Tooltip label={key.allowedIps.join(", ")} multiline w={260}>
                    <Text size="xs" c="dimmed" data-testid="key-allowed-ips">
                      {key.allowedIps.length === 1 ? key.allowedIps[0] : `${key.allowedIps.length} addresses`} only
                    </Text>
                  </Tooltip>
                ) : null}
              </Table.Td>
              <Table.Td>
                <Tooltip label={key.expiresAt ? new Date(key.expiresAt).toLocaleString() : "Never expires"} disabled={!key.expiresAt}>
                  <Text size="sm">{key.expiresAt ? dateOnly(key.expiresAt) : "Never"}</Text>
                </Tooltip>
                {key.operatorExpiresAt ? (
                  <SetByOperator viewer="owner" testId="key-expiry-by-operator">
                    {key.expiresAt === key.operatorExpiresAt ? "set by the operator" : `the operator's: ${dateOnly(key.operatorExpiresAt)}`}
                  </SetByOperator>
                ) : null}
              </Table.Td>
              <Table.Td>
                <Text size="sm" c={key.lastUsedAt ? undefined : "dimmed"}>
                  {key.lastUsedAt ? relative(key.lastUsedAt) : "Never"}
                </Text>
              </Table.Td>
              <Table.Td>
                <KeyStatus apiKey={key} viewer="owner" />
              </Table.Td>
              <Table.Td>
                <Group gap={2} wrap="nowrap">
                  {key.purpose !== "playground" && (key.status === "active" || key.status === "disabled") ? (
                    <>
                      <Tooltip label="Edit name, expiry and cap">
                        <ActionIcon variant="subtle" aria-label={`Edit key ${key.name || key.prefix}`} onClick={() => onEdit(key)}>
                          <IconPencil size={16} />
                        </ActionIcon>
                      </Tooltip>
                      {/* Pause and resume are the owner's own switch: a resume cannot lift the operator's disable, so it is not offered then. */}
                      {!key.pausedByOwner ? (
                        <Tooltip label="Pause: refused until resumed">
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Pause key ${key.name || key.prefix}`}
                            onClick={() => onPause(key, true)}
                          >
                            <IconPlayerPause size={16} />
                          </ActionIcon>
                        </Tooltip>
                      ) : !key.disabledByOperator ? (
                        <Tooltip label="Resume">
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Resume key ${key.name || key.prefix}`}
                            onClick={() => onPause(key, false)}
                          >
                            <IconPlayerPlay size={16} />
                          </ActionIcon>
                        </Tooltip>
                      ) : null}
                    </>
                  ) : null}
                  <Tooltip label="Revoke key">
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Revoke key ${key.name || key.prefix}`}
                      onClick={() => onRevoke(key)}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
    </Card>
  );
}
