"use client";
// Operator: redeem code batches. Generate a batch (the plain codes are shown once, to copy or download as CSV),
// and see every code with its status and who redeemed it when. The pieces are in components/admin/codes/.
import { useState } from "react";
import { Button, Card, EmptyState, Grid, Group, Modal, SegmentedControl, Select, Stack, Text } from "@mantine/core";
import { IconBan, IconDownload, IconTicket } from "@tabler/icons-react";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import type { AdminRedeemCode, CreatedCodes } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { BatchesCard } from "./codes/batches-card";
import { CodesTable } from "./codes/codes-table";
import { CreatedModal } from "./codes/created-modal";
import { GenerateForm } from "./codes/generate-form";
import { useCodeList } from "./codes/use-code-list";

export function CodesAdmin() {
  const { codes, all, batches, shown, batch, setBatch, status, setStatus, redeemer, exportList } = useCodeList();
  const [created, setCreated] = useState<CreatedCodes | null>(null);
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
          <BatchesCard batches={batches} onPick={setBatch} />
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
            <SegmentedControl
              value={status}
              onChange={setStatus}
              data={[
                { value: "all", label: "all" },
                { value: "unused", label: "unused" },
                { value: "used", label: "used" },
                { value: "disabled", label: "voided" },
              ]}
              aria-label="Status"
            />
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
          <CodesTable codes={shown} redeemer={redeemer} onVoid={(code) => setVoiding({ code })} />
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
