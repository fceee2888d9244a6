"use client";
// Operator: the email outbox. Without SMTP every message (password resets, sign-up notices) is kept here and in
// the server log, so the operator can pass a link on by hand on an offline install.
import { useState } from "react";
import { Button, Card, Code, EmptyState, Group, Modal, ScrollArea, Stack, Table, Text, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { IconMail, IconSearch } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import { dateTime } from "@/lib/portal/format";
import type { OutboxMail } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading, StatusBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

export function OutboxAdmin() {
  const [to, setTo] = useState("");
  const [debounced] = useDebouncedValue(to.trim(), 300);
  const mails = useApi<{ data: OutboxMail[] }>(`/api/admin/outbox${debounced ? `?to=${encodeURIComponent(debounced)}` : ""}`);
  const [open, setOpen] = useState<OutboxMail | null>(null);
  const list = mails.data?.data ?? [];

  return (
    <>
      <PageHeader
        title="Email outbox"
        description="The latest 200 messages the gateway sent or, without SMTP configured, logged. Reset links in them are secret: handle with care."
      />
      <TextInput
        placeholder="Exact recipient address"
        leftSection={<IconSearch size={16} />}
        value={to}
        onChange={(event) => setTo(event.currentTarget.value)}
        mb="md"
        maw={360}
        aria-label="Filter by recipient"
      />
      {mails.error ? <LoadError error={mails.error} onRetry={mails.reload} /> : null}
      {mails.loading && !mails.data ? (
        <Loading />
      ) : mails.data && list.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState
            icon={<IconMail size={28} />}
            variant="light"
            title="No messages"
            description={debounced ? "Nothing was sent to this address." : "Password reset, sign-up and security notice mails appear here."}
          />
        </Card>
      ) : mails.data ? (
        <Card withBorder radius="lg" p={0}>
          <DataTable minWidth={720} verticalSpacing="sm" horizontalSpacing="md" highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>To</Table.Th>
                <Table.Th>Subject</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th w={90}>
                  <span className="visually-hidden">Open</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((mail) => (
                <Table.Tr key={mail.id}>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>{dateTime(mail.createdAt)}</Table.Td>
                  <Table.Td>{mail.to}</Table.Td>
                  <Table.Td>{mail.subject}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={mail.status} />
                  </Table.Td>
                  <Table.Td>
                    <Button
                      size="compact-xs"
                      variant="light"
                      onClick={() => setOpen(mail)}
                      aria-label={`Read message to ${mail.to}: ${mail.subject}`}
                    >
                      Read
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </DataTable>
        </Card>
      ) : null}
      <Modal opened={open !== null} onClose={() => setOpen(null)} title={<Text fw={600}>{open?.subject}</Text>} size="lg" centered>
        {open ? (
          <Stack gap="sm">
            <Group gap="xs">
              <Text size="sm" c="dimmed">
                To {open.to} · {dateTime(open.createdAt)}
              </Text>
              <StatusBadge status={open.status} />
            </Group>
            <ScrollArea.Autosize mah={420} type="auto">
              <Code block style={{ whiteSpace: "pre-wrap" }}>
                {open.text}
              </Code>
            </ScrollArea.Autosize>
          </Stack>
        ) : null}
      </Modal>
    </>
  );
}
