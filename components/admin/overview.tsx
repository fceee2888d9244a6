"use client";
// Operator overview (the first operator page): per channel, over a chosen range, how many requests it served, how
// many failed, the revenue and the median latency; and requests per hour (or day). Data: GET /api/admin/overview.
// Above them, when the gateway sends no mail (no SMTP_URL), how many messages wait in the outbox for the operator.
import { useState } from "react";
import Link from "next/link";
import { BarChart } from "@mantine/charts";
import { Alert, Anchor, Badge, Card, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { IconMailOff } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import { count, dateOnly, hourMinute, latency, usd } from "@/lib/portal/format";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

type Overview = {
  hours: number;
  truncated: boolean;
  mail: { configured: boolean; waiting: number; failed: number };
  channels: { channel: string; requests: number; errors: number; errorRate: number; revenue: number; latencyP50: number | null }[];
  series: { at: string; requests: number; errors: number; revenue: number }[];
};

const RANGES = [
  { value: "24", label: "24 hours" },
  { value: "168", label: "7 days" },
  { value: "720", label: "30 days" },
];

export function OverviewAdmin() {
  const [hours, setHours] = useState("24");
  const data = useApi<Overview>(`/api/admin/overview?hours=${hours}`);
  const overview = data.data;
  const daily = Number(hours) > 48;
  const points = (overview?.series ?? []).map((point) => ({
    when: daily ? dateOnly(point.at) : hourMinute(point.at),
    Succeeded: point.requests - point.errors,
    Failed: point.errors,
  }));
  const totals = (overview?.channels ?? []).reduce(
    (sum, row) => ({ requests: sum.requests + row.requests, errors: sum.errors + row.errors, revenue: sum.revenue + row.revenue }),
    { requests: 0, errors: 0, revenue: 0 },
  );

  return (
    <>
      <PageHeader
        title="Overview"
        description="How each channel is doing: traffic, failures, revenue and latency."
        actions={<SegmentedControl value={hours} onChange={setHours} data={RANGES} aria-label="Range" />}
      />
      {data.error ? <LoadError error={data.error} onRetry={data.reload} /> : null}
      {!overview ? (
        <Loading />
      ) : (
        <Stack gap="md">
          <MailNotice mail={overview.mail} />
          <Group gap="md" wrap="wrap">
            <Badge size="lg" variant="light">
              {count(totals.requests)} requests
            </Badge>
            <Badge size="lg" variant="light" color={totals.errors ? "red" : "teal"}>
              {totals.requests ? ((totals.errors / totals.requests) * 100).toFixed(1) : "0.0"} % failed
            </Badge>
            <Badge size="lg" variant="light" color="grape">
              {usd(totals.revenue)} revenue
            </Badge>
            {overview.truncated ? (
              <Text size="xs" c="dimmed">
                Counted over the newest 200,000 requests of the range.
              </Text>
            ) : null}
          </Group>
          <Card withBorder radius="lg" padding="lg">
            <Title order={2} fz="lg" mb="md">
              Requests per {daily ? "day" : "hour"}
            </Title>
            {points.length ? (
              <BarChart
                h={240}
                data={points}
                dataKey="when"
                type="stacked"
                series={[
                  { name: "Succeeded", color: "teal.6" },
                  { name: "Failed", color: "red.6" },
                ]}
                gridAxis="y"
                tickLine="none"
                role="img"
                aria-label="Requests over time"
              />
            ) : (
              <Text size="sm" c="dimmed">
                No requests in this range.
              </Text>
            )}
          </Card>
          {overview.channels.length === 0 ? (
            <Card withBorder radius="lg" py="xl" data-testid="overview-empty">
              <Text size="sm" c="dimmed" ta="center">
                No traffic in this range yet: each channel appears here with its requests, failures, revenue and latency once it serves a
                request.
              </Text>
            </Card>
          ) : (
            <Card withBorder radius="lg" p={0}>
              <DataTable minWidth={560} verticalSpacing="sm" horizontalSpacing="md" data-testid="overview-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Channel</Table.Th>
                    <Table.Th ta="right">Requests</Table.Th>
                    <Table.Th ta="right">Failed</Table.Th>
                    <Table.Th ta="right">Revenue</Table.Th>
                    <Table.Th ta="right">Latency p50</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {overview.channels.map((row) => (
                    <Table.Tr key={row.channel} data-testid="overview-row">
                      <Table.Td>{row.channel}</Table.Td>
                      <Table.Td ta="right">{count(row.requests)}</Table.Td>
                      <Table.Td ta="right">
                        {count(row.errors)} ({(row.errorRate * 100).toFixed(1)} %)
                      </Table.Td>
                      <Table.Td ta="right">{usd(row.revenue)}</Table.Td>
                      <Table.Td ta="right">{row.latencyP50 === null ? "—" : latency(row.latencyP50)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </DataTable>
            </Card>
          )}
        </Stack>
      )}
    </>
  );
}

/** Mail off (no SMTP_URL): every reset link, confirmation and notice waits in the outbox; or deliveries that failed. */
function MailNotice({ mail }: { mail: Overview["mail"] }) {
  const plural = (n: number) => `${count(n)} message${n === 1 ? "" : "s"}`;
  if (mail.configured && mail.failed === 0) return null;
  const outbox = (
    // The alert's own text colour: a blue link on the light orange falls short of WCAG AA contrast.
    <Anchor component={Link} href="/admin/outbox" size="sm" c="inherit" fw={600} underline="always">
      Open the Email outbox
    </Anchor>
  );
  if (mail.configured) {
    return (
      <Alert color="orange" variant="light" icon={<IconMailOff size={18} />} title="Some mail was not delivered" data-testid="mail-notice">
        {plural(mail.failed)} could not be sent through the mail server (SMTP_URL) and are kept in the outbox. {outbox}
      </Alert>
    );
  }
  return (
    <Alert color="orange" variant="light" icon={<IconMailOff size={18} />} title="Mail is off" data-testid="mail-notice">
      <Text size="sm">
        This gateway sends no email: SMTP_URL is not set. Password reset links, sign-up confirmations and security notices are kept in the
        outbox instead, and people are told to ask you for them. <b data-testid="mail-waiting">{plural(mail.waiting)}</b>{" "}
        {mail.waiting === 1 ? "waits" : "wait"} in the outbox. {outbox}
      </Text>
    </Alert>
  );
}
