"use client";
// Operator: groups (which models a key may call, and a rate limit) and prices (USD per 1M tokens by kind, per 1M
// characters for speech, per 1M seconds for transcription, and the multipliers of the request fields that change what
// the vendor bills: docs/billing.md, "Price modifiers"). The forms and tables are in components/admin/groups/.
import { useEffect, useState } from "react";
import { Button, Modal, Tabs, Text } from "@mantine/core";
import { IconCurrencyDollar, IconPlus, IconUsersGroup } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import type { AdminGroup, AdminPrice } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { GroupForm } from "./groups/group-form";
import { GroupsTable } from "./groups/groups-table";
import { PriceForm } from "./groups/price-form";
import { PricesTable } from "./groups/prices-table";

export function GroupsAdmin() {
  const groups = useApi<{ data: AdminGroup[] }>("/api/admin/groups");
  const prices = useApi<{ data: AdminPrice[] }>("/api/admin/prices");
  // Each model's kind, so that a speech or transcription model shows and edits its own rate.
  const catalog = useApi<{ data: { id: string; kind: string }[] }>("/api/admin/catalog");
  const kinds: Record<string, string> = Object.fromEntries((catalog.data?.data ?? []).map((entry) => [entry.id, entry.kind]));
  const [group, setGroup] = useState<AdminGroup | "new" | null>(null);
  const [price, setPrice] = useState<AdminPrice | "new" | null>(null);
  const [tab, setTab] = useState<string | null>("groups");
  // "/admin/groups?price=<model>" (a channel's "add a price"): the Prices tab with a new price for that model.
  const [priceFor, setPriceFor] = useState<string | undefined>(undefined);
  useEffect(() => {
    const model = new URLSearchParams(window.location.search).get("price");
    if (!model) return;
    setTab("prices");
    setPriceFor(model);
    setPrice("new");
  }, []);

  return (
    <>
      <PageHeader
        title="Groups & prices"
        description="A key belongs to a group, which decides the models it may call. Every model needs a price before it can be served."
        actions={
          tab === "groups" ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setGroup("new")}>
              New group
            </Button>
          ) : (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setPrice("new")}>
              New price
            </Button>
          )
        }
      />
      <Tabs value={tab} onChange={setTab} mb="md">
        <Tabs.List>
          <Tabs.Tab value="groups" leftSection={<IconUsersGroup size={16} />}>
            Groups
          </Tabs.Tab>
          <Tabs.Tab value="prices" leftSection={<IconCurrencyDollar size={16} />}>
            Prices
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="groups" pt="md">
          {groups.error ? <LoadError error={groups.error} onRetry={groups.reload} /> : null}
          {groups.data ? <GroupsTable groups={groups.data.data} onEdit={setGroup} /> : groups.loading ? <Loading /> : null}
        </Tabs.Panel>
        <Tabs.Panel value="prices" pt="md">
          {prices.error ? <LoadError error={prices.error} onRetry={prices.reload} /> : null}
          {prices.data ? <PricesTable prices={prices.data.data} kinds={kinds} onEdit={setPrice} /> : prices.loading ? <Loading /> : null}
        </Tabs.Panel>
      </Tabs>

      <Modal
        opened={group !== null}
        onClose={() => setGroup(null)}
        title={<Text fw={600}>{group === "new" ? "New group" : "Edit group"}</Text>}
        centered
      >
        {group !== null ? (
          <GroupForm
            group={group === "new" ? null : group}
            onDone={() => {
              setGroup(null);
              void groups.reload();
            }}
          />
        ) : null}
      </Modal>
      <Modal
        opened={price !== null}
        onClose={() => {
          setPrice(null);
          setPriceFor(undefined);
        }}
        title={<Text fw={600}>{price === "new" ? "New price" : "Edit price"}</Text>}
        centered
      >
        {price !== null ? (
          <PriceForm
            price={price === "new" ? null : price}
            model={price === "new" ? priceFor : undefined}
            kinds={kinds}
            onDone={() => {
              setPrice(null);
              setPriceFor(undefined);
              void prices.reload();
            }}
          />
        ) : null}
      </Modal>
    </>
  );
}
