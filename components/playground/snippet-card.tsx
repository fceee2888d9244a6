"use client";
// The current request as ready-to-copy curl, Python and Node code. The key comes from $GATEWAY_API_KEY.
import { Card, Code, Group, Tabs, Text, Title } from "@mantine/core";
import { IconBrandPython, IconBrandNodejs, IconTerminal2 } from "@tabler/icons-react";
import type { Snippets } from "@/lib/portal/snippets";
import { CopyIcon } from "@/components/feedback";

export function SnippetCard({ snippets }: { snippets: Snippets }) {
  const tabs = [
    { value: "curl", label: "curl", icon: <IconTerminal2 size={14} />, code: snippets.curl },
    { value: "python", label: "Python", icon: <IconBrandPython size={14} />, code: snippets.python },
    { value: "node", label: "Node.js", icon: <IconBrandNodejs size={14} />, code: snippets.node },
  ];
  return (
    <Card withBorder radius="lg" padding="lg">
      <Group justify="space-between" mb="xs">
        <Title order={2} fz="lg">
          Code for this request
        </Title>
        <Text size="xs" c="dimmed">
          export GATEWAY_API_KEY=sk-…
        </Text>
      </Group>
      <Tabs defaultValue="curl" keepMounted={false}>
        <Tabs.List>
          {tabs.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value} leftSection={tab.icon}>
              {tab.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {tabs.map((tab) => (
          <Tabs.Panel key={tab.value} value={tab.value} pt="sm">
            <div className="snippet">
              <div className="snippet-copy">
                <CopyIcon value={tab.code} label={`Copy ${tab.label} code`} />
              </div>
              {/* Focusable: a long snippet scrolls within its box (app/globals.css), and keyboards scroll it too. */}
              <Code block className="snippet-code" data-testid={`snippet-${tab.value}`} tabIndex={0}>
                {tab.code}
              </Code>
            </div>
          </Tabs.Panel>
        ))}
      </Tabs>
    </Card>
  );
}
