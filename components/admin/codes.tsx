"use client";
// Operator: redeem code batches. Generate a batch (the plain codes are shown once, to copy or download as CSV),
// and see every code with its status and who redeemed it when.
import { useMemo, useState, type FormEvent } from "react";
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Code,
  EmptyState,
  Grid,
  Group,
  Modal,
  NumberInput,
  ScrollArea,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconAlertTriangle, IconBan, IconDownload, IconTicket } from "@tabler/icons-react";
import { notifications } from "@mantine/notifications";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import { count, dateOnly, dateTime, usd, usdToMicros } from "@/lib/portal/format";
import { download, toCsv } from "@/lib/portal/csv";
import type { AdminRedeemCode, AdminUser, CreatedCodes } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { CopyIcon, FormError, LoadError, Loading, StatusBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

const FIELDS = ["quota", "count", "expiresAt", "batch"] as const;

function GenerateForm({ onCreated }: { onCreated: (created: CreatedCodes) => void }) {
  const [value, setValue] = useState<number | string>(10);
  const [howMany, setHowMany] = useState<number | string>(10);
  const [expires, setExpires] = useState("");
  const [batch, setBatch] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const fields: Record<string, string> = {};
    if (typeof value !== "number" || value <= 0) fields.quota = "Enter a value above $0";
    if (typeof howMany !== "number" || howMany < 1 || howMany > 1000) fields.count = "Between 1 and 1,000 codes";
    setErrors({ fields, form: null });
    if (Object.keys(fields).length) return;
    setSaving(true);
    try {
      const created = await api<CreatedCodes>("/api/admin/redeem-codes", {
        body: {
          quota: usdToMicros(Number(value)),
          count: Number(howMany),
          ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
          ...(batch.trim() ? { batch: batch.trim() } : {}),
        },
      });
      setBatch("");
      onCreated(created);
    } catch (error) {
      setErrors(formErrors(error, FIELDS));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card withBorder radius="lg" padding="lg">
      <Title order={2} fz="lg" mb="md">
        Generate a batch
      </Title>
      <form onSubmit={submit} noValidate aria-label="Generate redeem codes">
        <Stack gap="md">
          <FormError message={errors.form} />
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
            <NumberInput
              label="Value of each code"
              prefix="$"
              min={0.01}
              decimalScale={2}
              value={value}
              onChange={setValue}
              error={errors.fields.quota}
              name="quota"
            />
            <NumberInput
              label="Number of codes"
              min={1}
              max={1000}
              value={howMany}
              onChange={setHowMany}
              error={errors.fields.count}
              name="count"
            />
            <TextInput
              label="Expires (optional)"
              type="date"
              value={expires}
              onChange={(event) => setExpires(event.currentTarget.value)}
              error={errors.fields.expiresAt}
              name="expiresAt"
            />
            <TextInput
              label="Batch name (optional)"
              placeholder="e.g. launch-promo"
              value={batch}
              onChange={(event) => setBatch(event.currentTarget.value)}
              error={errors.fields.batch}
              maxLength={100}
              name="batch"
            />
          </SimpleGrid>
          <Group justify="flex-end">
            <Button type="submit" loading={saving} leftSection={<IconTicket size={16} />}>
              Generate codes
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function CreatedModal({ created, onClose }: { created: CreatedCodes | null; onClose: () => void }) {
  if (!created) return null;
  const csv = toCsv(created.codes, [
    { header: "code", value: (code) => code },
    { header: "value_usd", value: () => (created.quota / 1_000_000).toFixed(2) },
    { header: "batch", value: () => created.batch },
    { header: "expires_at", value: () => created.expiresAt ?? "" },
  ]);
  return (
    <Modal
      opened
      onClose={onClose}
      title={
        <Text fw={600}>
          {count(created.codes.length)} codes in batch {created.batch}
        </Text>
      }
      size="lg"
      centered
      closeOnClickOutside={false}
    >
      <Stack gap="md">
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />}>
          These codes are shown once: only their hashes are stored. Download or copy them now.
        </Alert>
        <Text size="sm">
          Each is worth <b>{usd(created.quota)}</b>
          {created.expiresAt ? `, until ${dateOnly(created.expiresAt)}` : ", without expiry"}.
        </Text>
        <ScrollArea.Autosize mah={300} type="auto">
          <Code block data-testid="created-codes">
            {created.codes.join("\n")}
          </Code>
        </ScrollArea.Autosize>
        <Group justify="space-between">
          <Group gap="xs">
            <CopyIcon value={created.codes.join("\n")} label="Copy all codes" />
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={() => download(`redeem-codes-${created.batch}.csv`, csv)}
              data-testid="download-codes"
            >
              Download CSV
            </Button>
          </Group>
          <Button onClick={onClose}>Done</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function CodesAdmin() {
  const codes = useApi<{ data: AdminRedeemCode[] }>("/api/admin/redeem-codes");
  const users = useApi<{ data: AdminUser[] }>("/api/admin/users?limit=1000");
  const [created, setCreated] = useState<CreatedCodes | null>(null);
  const [batch, setBatch] = useState<string | null>(null);
  const [status, setStatus] = useState("all");
  /** What the operator is about to void: a whole batch, or one code. */
  const [voiding, setVoiding] = useState<{ batch?: string; code?: AdminRedeemCode } | null>(null);

  async function voidNow() {
    if (!voiding) return;
    try {
      const result = await api<{ voided: number }>("/api/admin/redeem-codes/void", {
        body: voiding.batch !== undefined ? { batch: voiding.batch } : { ids: [voiding.code!.id] },
      });
      notifications.show({
        color: "teal",
        title: `${result.voided} code${result.voided === 1 ? "" : "s"} voided`,
        message: "They can no longer be redeemed.",
      });
      setVoiding(null);
      await codes.reload();
    } catch (error) {
      notifications.show({ color: "red", title: "Could not void", message: (error as Error).message });
    }
  }

  const emails = useMemo(() => new Map((users.data?.data ?? []).map((user) => [user.id, user.email])), [users.data]);
  const all = codes.data?.data ?? [];
  const batches = useMemo(() => {
    const summary = new Map<string, { batch: string; total: number; used: number; value: number; createdAt: string }>();
    for (const code of all) {
      const entry = summary.get(code.batch) ?? { batch: code.batch, total: 0, used: 0, value: 0, createdAt: code.createdAt };
      entry.total++;
      if (code.status === "used") entry.used++;
      entry.value += code.quota;
      summary.set(code.batch, entry);
    }
    return [...summary.values()];
  }, [all]);
  const shown = all.filter((code) => (!batch || code.batch === batch) && (status === "all" || code.status === status));

  function exportList() {
    download(
      `redeem-codes${batch ? `-${batch}` : ""}-status.csv`,
      toCsv(shown, [
        { header: "prefix", value: (code) => code.prefix },
        { header: "batch", value: (code) => code.batch },
        { header: "value_usd", value: (code) => (code.quota / 1_000_000).toFixed(2) },
        { header: "status", value: (code) => code.status },
        { header: "expires_at", value: (code) => code.expiresAt },
        { header: "redeemed_at", value: (code) => code.redeemedAt },
        { header: "redeemed_by", value: (code) => (code.redeemedById ? (emails.get(code.redeemedById) ?? code.redeemedById) : "") },
        { header: "created_at", value: (code) => code.createdAt },
      ]),
    );
  }

  return (
    <>
      <PageHeader
        title="Redeem codes"
        description="Codes add balance to the account that redeems them, once. Generate them in batches to sell or give away."
      />
      <Grid gap="md" mb="md">
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <GenerateForm
            onCreated={(result) => {
              setCreated(result);
              void codes.reload();
            }}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Card withBorder radius="lg" padding="lg" h="100%">
            <Title order={2} fz="lg" mb="md">
              Batches
            </Title>
            {batches.length === 0 ? (
              <Text size="sm" c="dimmed">
                No codes yet.
              </Text>
            ) : (
              <ScrollArea.Autosize mah={220} type="auto">
                <Table verticalSpacing={6}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Batch</Table.Th>
                      <Table.Th ta="right">Used</Table.Th>
                      <Table.Th ta="right">Value</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {batches.map((entry) => (
                      <Table.Tr key={entry.batch} style={{ cursor: "pointer" }} onClick={() => setBatch(entry.batch)}>
                        <Table.Td>
                          <Text size="sm" ff="monospace">
                            {entry.batch || "(none)"}
                          </Text>
                        </Table.Td>
                        <Table.Td ta="right">
                          {entry.used}/{entry.total}
                        </Table.Td>
                        <Table.Td ta="right">{usd(entry.value)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollArea.Autosize>
            )}
          </Card>
        </Grid.Col>
      </Grid>

      <Card withBorder radius="lg" p={0}>
        <Group justify="space-between" p="md" wrap="wrap" gap="sm">
          <Group gap="sm" wrap="wrap">
            <Select
              placeholder="All batches"
              data={batches.map((entry) => entry.batch)}
              value={batch}
              onChange={setBatch}
              clearable
              searchable
              aria-label="Batch"
              w={260}
            />
            <SegmentedControl value={status} onChange={setStatus} data={["all", "unused", "used", "disabled"]} aria-label="Status" />
          </Group>
          <Group gap="sm">
            {batch ? (
              <Button
                variant="light"
                color="red"
                leftSection={<IconBan size={16} />}
                onClick={() => setVoiding({ batch })}
                disabled={!all.some((code) => code.batch === batch && code.status === "unused")}
              >
                Void this batch
              </Button>
            ) : null}
            <Button variant="default" leftSection={<IconDownload size={16} />} onClick={exportList} disabled={!shown.length}>
              Download list (CSV)
            </Button>
          </Group>
        </Group>
        {codes.error ? <LoadError error={codes.error} onRetry={codes.reload} /> : null}
        {codes.loading && !codes.data ? (
          <Loading />
        ) : shown.length === 0 ? (
          <EmptyState
            py={48}
            icon={<IconTicket size={28} />}
            variant="light"
            title={all.length ? "No code matches" : "No codes yet"}
            description={all.length ? undefined : "Generate a batch above."}
          />
        ) : (
          <>
            <DataTable minWidth={820} verticalSpacing="xs" horizontalSpacing="md" highlightOnHover data-testid="codes-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Code</Table.Th>
                  <Table.Th>Batch</Table.Th>
                  <Table.Th ta="right">Value</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Redeemed</Table.Th>
                  <Table.Th w={60}>
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.slice(0, 500).map((code) => (
                  <Table.Tr key={code.id} data-testid="code-row">
                    <Table.Td>
                      <Code>{code.prefix}…</Code>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {code.batch}
                      </Text>
                    </Table.Td>
                    <Table.Td ta="right">{usd(code.quota)}</Table.Td>
                    <Table.Td>
                      <StatusBadge status={code.status} />
                    </Table.Td>
                    <Table.Td>
                      {code.expiresAt ? (
                        dateOnly(code.expiresAt)
                      ) : (
                        <Text size="sm" c="dimmed">
                          never
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      {code.redeemedAt ? (
                        <Text size="sm">
                          {dateTime(code.redeemedAt)}
                          <Text span size="xs" c="dimmed">
                            {" "}
                            by {code.redeemedById ? (emails.get(code.redeemedById) ?? code.redeemedById) : "?"}
                          </Text>
                        </Text>
                      ) : (
                        <Text size="sm" c="dimmed">
                          —
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      {code.status === "unused" ? (
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={`Void code ${code.prefix}`}
                          onClick={() => setVoiding({ code })}
                        >
                          <IconBan size={16} />
                        </ActionIcon>
                      ) : null}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </DataTable>
            {shown.length > 500 ? (
              <Text size="xs" c="dimmed" p="md">
                Showing 500 of {count(shown.length)}; the CSV has all of them. <Badge size="xs">filter by batch</Badge>
              </Text>
            ) : null}
          </>
        )}
      </Card>
      <CreatedModal created={created} onClose={() => setCreated(null)} />
      <Modal opened={voiding !== null} onClose={() => setVoiding(null)} title={<Text fw={600}>Void redeem codes</Text>} centered>
        <Stack gap="md">
          <Text size="sm">
            {voiding?.batch !== undefined
              ? `Void every unused code of batch ${voiding.batch || "(none)"}? Codes already redeemed stay as they are.`
              : `Void the code ${voiding?.code?.prefix}…? It can no longer be redeemed.`}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setVoiding(null)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => void voidNow()}>
              Void
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
