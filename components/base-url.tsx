"use client";
// The gateway's public base URL as people must type it into a client: APP_URL when the operator set it, else the
// origin this page was loaded from. Shown in the OpenAI form (…/v1) and the Anthropic form (the root), each on one
// line with a copy button, and used by every copyable example in the portal.
import { createContext, useContext, type ReactNode } from "react";
import { Group, Stack, Text } from "@mantine/core";
import { useOrigin } from "@/lib/portal/api";
import { CopyIcon } from "@/components/feedback";

const ConfiguredBaseUrl = createContext<string | null>(null);

export function BaseUrlProvider({ appUrl, children }: { appUrl: string | null; children: ReactNode }) {
  return <ConfiguredBaseUrl.Provider value={appUrl ? appUrl.replace(/\/+$/, "") : null}>{children}</ConfiguredBaseUrl.Provider>;
}

/** "" while rendering on the server without APP_URL (hydration then fills in the page's origin). */
export function useBaseUrl(): string {
  const configured = useContext(ConfiguredBaseUrl);
  const origin = useOrigin();
  return configured ?? origin;
}

/**
 * One line, never broken inside the URL: when it is wider than its place (the sidebar, a phone), its start gives way to
 * an ellipsis so the end that tells the two forms apart (…/v1) stays in view; the full URL is in its title and the
 * copy button copies it whole.
 */
function Row({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Group gap={4} wrap="nowrap" justify="space-between">
      <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
        <Text size="xs" c="dimmed">
          {label}
        </Text>
        <Text size="xs" ff="monospace" truncate="start" title={value} data-testid={testId}>
          <bdi>{value}</bdi>
        </Text>
      </Stack>
      <CopyIcon value={value} label={`Copy the ${label} base URL`} />
    </Group>
  );
}

/** Both forms of the base URL, copyable. */
export function ApiBaseUrls({ appUrl }: { appUrl?: string | null }) {
  const fromContext = useBaseUrl();
  const base = appUrl ? appUrl.replace(/\/+$/, "") : fromContext;
  if (!base) return null;
  return (
    <Stack gap={6} data-testid="api-base-urls">
      <Row label="OpenAI SDKs" value={`${base}/v1`} testId="base-url-openai" />
      <Row label="Anthropic SDKs" value={base} testId="base-url-anthropic" />
    </Stack>
  );
}
