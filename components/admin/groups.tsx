"use client";
// Operator: groups (which models a key may call, and a rate limit) and prices (USD per 1M tokens, by kind, and the
// multipliers of the request fields that change what the vendor bills: docs/billing.md, "Price modifiers").
import { useState, type FormEvent } from "react";
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  EmptyState,
  Group,
  Modal,
  NumberInput,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  TagsInput,
  Text,
  TextInput,
  Autocomplete,
  Tooltip,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconCurrencyDollar, IconEdit, IconPlus, IconTrash, IconUsersGroup } from "@tabler/icons-react";
import { ALL_MODELS } from "@/lib/catalog/models";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import type { AdminGroup, AdminPrice } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { FormError, LoadError, Loading } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

function GroupForm({ group, onDone }: { group: AdminGroup | null; onDone: () => void }) {
  const [name, setName] = useState(group?.name ?? "");
  const [models, setModels] = useState<string[]>(group?.models ?? []);
  const [limit, setLimit] = useState<number | string>(group?.rateLimitPerMinute ?? "");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setErrors(NO_ERRORS);
    try {
      await api("/api/admin/groups", {
        body: { name: name.trim(), models, rateLimitPerMinute: typeof limit === "number" && limit > 0 ? limit : null },
      });
      notifications.show({ color: "teal", title: group ? "Group saved" : "Group created", message: name });
      onDone();
    } catch (error) {
      setErrors(formErrors(error, ["name", "models", "rateLimitPerMinute"]));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label={group ? "Edit group" : "New group"}>
      <Stack gap="md">
        <FormError message={errors.form} />
        <TextInput
          label="Name"
          description="Letters, digits, '.', '_' and '-'."
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={errors.fields.name}
          disabled={Boolean(group)}
          data-autofocus
          name="name"
        />
        <TagsInput
          label="Models"
          description="The models keys in this group may call."
          data={ALL_MODELS}
          value={models}
          onChange={setModels}
          error={errors.fields.models}
          clearable
          name="models"
        />
        <NumberInput
          label="Rate limit"
          description="Requests per minute per key; empty for none."
          min={1}
          value={limit}
          onChange={setLimit}
          error={errors.fields.rateLimitPerMinute}
          name="rateLimitPerMinute"
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Save group
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The vendors' own price modifiers, offered as keys (the values that cost more, and flex's discount). */
const MODIFIER_SUGGESTIONS = ["service_tier:priority", "service_tier:scale", "service_tier:flex", "speed:fast", "inference_geo:us"];

type ModifierRow = { id: number; key: string; multiplier: number | string };

function PriceForm({ price, onDone }: { price: AdminPrice | null; onDone: () => void }) {
  const [model, setModel] = useState(price?.model ?? "");
  const [values, setValues] = useState<Record<string, number | string>>({
    textInput: price?.textInput ?? 0,
    textOutput: price?.textOutput ?? 0,
    imageInput: price?.imageInput ?? 0,
    imageOutput: price?.imageOutput ?? 0,
  });
  const [modifiers, setModifiers] = useState<ModifierRow[]>(() =>
    Object.entries(price?.modifiers ?? {}).map(([key, multiplier], index) => ({ id: index, key, multiplier })),
  );
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  const editModifier = (id: number, change: Partial<ModifierRow>) =>
    setModifiers((rows) => rows.map((row) => (row.id === id ? { ...row, ...change } : row)));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setErrors(NO_ERRORS);
    const filled = modifiers.filter((row) => row.key.trim() !== "");
    const unpriced = filled.find((row) => typeof row.multiplier !== "number" || row.multiplier <= 0);
    if (unpriced) {
      setErrors({ fields: { modifiers: `Give ${unpriced.key.trim()} a multiplier above 0, or remove it.` }, form: null });
      return;
    }
    setSaving(true);
    try {
      await api("/api/admin/prices", {
        body: {
          model: model.trim(),
          ...Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Number(value) || 0])),
          modifiers: Object.fromEntries(filled.map((row) => [row.key.trim(), row.multiplier])),
        },
      });
      notifications.show({ color: "teal", title: "Price saved", message: `${model}: new requests use it at once.` });
      onDone();
    } catch (error) {
      setErrors(formErrors(error, ["model", "textInput", "textOutput", "imageInput", "imageOutput", "modifiers"]));
    } finally {
      setSaving(false);
    }
  }

  const field = (key: string, label: string) => (
    <NumberInput
      label={label}
      prefix="$"
      min={0}
      decimalScale={4}
      value={values[key]}
      onChange={(value) => setValues((current) => ({ ...current, [key]: value }))}
      error={errors.fields[key]}
      name={key}
    />
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Price">
      <Stack gap="md">
        <FormError message={errors.form} />
        <Autocomplete
          label="Model"
          data={ALL_MODELS}
          value={model}
          onChange={setModel}
          error={errors.fields.model}
          disabled={Boolean(price)}
          name="model"
        />
        <Text size="sm" c="dimmed">
          US dollars per 1 million tokens. A change bumps the price version; requests already reserved keep theirs.
        </Text>
        <SimpleGrid cols={2} spacing="md">
          {field("textInput", "Text input")}
          {field("textOutput", "Text output")}
          {field("imageInput", "Image input")}
          {field("imageOutput", "Image output")}
        </SimpleGrid>
        <Stack gap={6} role="group" aria-labelledby="price-modifiers-label">
          <Text size="sm" fw={500} id="price-modifiers-label">
            Price modifiers
          </Text>
          <Text size="xs" c="dimmed">
            A request field that makes the vendor bill more (or less) for the same tokens, as field:value (service_tier:priority,
            speed:fast, inference_geo:us) or a name from Settings: every token rate times the multiplier. A dearer value without a
            multiplier here is refused; flex without one is charged at the standard rates.
          </Text>
          {modifiers.map((row, index) => (
            <Group key={row.id} gap="xs" wrap="nowrap" align="flex-start" data-testid="price-modifier">
              <Autocomplete
                aria-label={`Modifier ${index + 1}`}
                placeholder="service_tier:priority"
                data={MODIFIER_SUGGESTIONS}
                value={row.key}
                onChange={(key) => editModifier(row.id, { key })}
                style={{ flex: 1, minWidth: 0 }}
                name={`modifier-${index}`}
              />
              <NumberInput
                aria-label={`Multiplier of modifier ${index + 1}`}
                prefix="×"
                min={0}
                max={100}
                decimalScale={4}
                value={row.multiplier}
                onChange={(multiplier) => editModifier(row.id, { multiplier })}
                w={104}
                name={`multiplier-${index}`}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={`Remove modifier ${row.key || index + 1}`}
                onClick={() => setModifiers((rows) => rows.filter((other) => other.id !== row.id))}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          ))}
          {errors.fields.modifiers ? (
            <Text size="xs" c="red" role="alert">
              {errors.fields.modifiers}
            </Text>
          ) : null}
          <Group>
            <Button
              variant="light"
              size="xs"
              leftSection={<IconPlus size={14} />}
              onClick={() =>
                setModifiers((rows) => [...rows, { id: Math.max(-1, ...rows.map((other) => other.id)) + 1, key: "", multiplier: "" }])
              }
            >
              Add modifier
            </Button>
          </Group>
        </Stack>
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Save price
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const money = (value: number) => `$${value.toLocaleString("en-US", { maximumFractionDigits: 4 })}`;

export function GroupsAdmin() {
  const groups = useApi<{ data: AdminGroup[] }>("/api/admin/groups");
  const prices = useApi<{ data: AdminPrice[] }>("/api/admin/prices");
  const [group, setGroup] = useState<AdminGroup | "new" | null>(null);
  const [price, setPrice] = useState<AdminPrice | "new" | null>(null);
  const [tab, setTab] = useState<string | null>("groups");

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
          {!groups.data ? (
            groups.loading ? (
              <Loading />
            ) : null
          ) : groups.data.data.length === 0 ? (
            <Card withBorder radius="lg" py={48}>
              <EmptyState
                icon={<IconUsersGroup size={28} />}
                variant="light"
                title="No groups"
                description="Create a group to give keys access to models."
              />
            </Card>
          ) : (
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
                  {groups.data.data.map((entry) => (
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
                          <ActionIcon variant="subtle" aria-label={`Edit group ${entry.name}`} onClick={() => setGroup(entry)}>
                            <IconEdit size={16} />
                          </ActionIcon>
                        </Tooltip>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </DataTable>
            </Card>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="prices" pt="md">
          {prices.error ? <LoadError error={prices.error} onRetry={prices.reload} /> : null}
          {!prices.data ? (
            prices.loading ? (
              <Loading />
            ) : null
          ) : (
            <Card withBorder radius="lg" p={0}>
              <DataTable minWidth={880} verticalSpacing="sm" horizontalSpacing="md" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Model</Table.Th>
                    <Table.Th ta="right">Text in</Table.Th>
                    <Table.Th ta="right">Text out</Table.Th>
                    <Table.Th ta="right">Image in</Table.Th>
                    <Table.Th ta="right">Image out</Table.Th>
                    <Table.Th>Modifiers</Table.Th>
                    <Table.Th ta="center">Version</Table.Th>
                    <Table.Th w={60}>
                      <span className="visually-hidden">Actions</span>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {prices.data.data.map((entry) => (
                    <Table.Tr key={entry.id}>
                      <Table.Td ff="monospace" fz="sm">
                        {entry.model}
                      </Table.Td>
                      <Table.Td ta="right">{money(entry.textInput)}</Table.Td>
                      <Table.Td ta="right">{money(entry.textOutput)}</Table.Td>
                      <Table.Td ta="right">{money(entry.imageInput)}</Table.Td>
                      <Table.Td ta="right">{money(entry.imageOutput)}</Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="wrap">
                          {Object.keys(entry.modifiers ?? {}).length ? (
                            Object.entries(entry.modifiers ?? {}).map(([key, multiplier]) => (
                              <Badge key={key} variant="outline" color="gray" size="xs" tt="none">
                                {key} ×{multiplier}
                              </Badge>
                            ))
                          ) : (
                            <Text size="sm" c="dimmed">
                              none
                            </Text>
                          )}
                        </Group>
                      </Table.Td>
                      <Table.Td ta="center">v{entry.version}</Table.Td>
                      <Table.Td>
                        <Tooltip label="Edit">
                          <ActionIcon variant="subtle" aria-label={`Edit price of ${entry.model}`} onClick={() => setPrice(entry)}>
                            <IconEdit size={16} />
                          </ActionIcon>
                        </Tooltip>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </DataTable>
              <Text size="xs" c="dimmed" p="md">
                Per 1 million tokens.
              </Text>
            </Card>
          )}
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
        onClose={() => setPrice(null)}
        title={<Text fw={600}>{price === "new" ? "New price" : "Edit price"}</Text>}
        centered
      >
        {price !== null ? (
          <PriceForm
            price={price === "new" ? null : price}
            onDone={() => {
              setPrice(null);
              void prices.reload();
            }}
          />
        ) : null}
      </Modal>
    </>
  );
}
