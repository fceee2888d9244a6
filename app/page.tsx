// The public landing page: what the service is, how to call it, where to sign in.
import { Anchor, Badge, Button, Card, Code, Container, Group, SimpleGrid, Stack, Text, ThemeIcon, Title } from "@mantine/core";
import { IconBolt, IconMessages, IconPhoto, IconSparkles, IconTerminal2 } from "@tabler/icons-react";
import { ApiBaseUrls, BaseUrlProvider } from "@/components/base-url";
import { TryItSnippet } from "@/components/landing-snippet";
import { ColorSchemeToggle } from "@/components/color-scheme-toggle";
import { env } from "@/lib/platform/env";
import { pageSession } from "@/lib/portal/server";

const ENDPOINTS = [
  {
    icon: IconPhoto,
    path: "POST /v1/images/generations · /v1/images/edits",
    title: "Images",
    text: "Generate and edit images with std-image-2: any size up to 3840 px, png, jpeg or webp, masks for edits.",
  },
  {
    icon: IconSparkles,
    path: "POST /v1/responses",
    title: "Responses",
    text: "A streaming text model (std-5.5) that calls an image tool; several images from one prompt, with live progress.",
  },
  {
    icon: IconMessages,
    path: "POST /v1/messages",
    title: "Messages",
    text: "Anthropic-compatible text for the msg-* models, with an optional 1M-token context ([1m]).",
  },
  {
    icon: IconTerminal2,
    path: "POST /v1/chat/completions",
    title: "Chat Completions",
    text: "OpenAI-compatible chat for every text model, streamed or not.",
  },
];

export default async function Landing() {
  // A signed-in visitor is offered the portal, not a sign-in form.
  const user = await pageSession();
  return (
    <Container size="md" py={64}>
      <Stack gap="xl">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <ThemeIcon size={44} radius="md" variant="gradient" gradient={{ from: "indigo", to: "violet" }}>
              <IconBolt size={26} />
            </ThemeIcon>
            <Title order={1}>Model Gateway</Title>
          </Group>
          <ColorSchemeToggle />
        </Group>
        <Text size="lg" c="dimmed" maw={640}>
          One endpoint in front of image and text model back-ends. Call it with the official OpenAI and Anthropic clients and an{" "}
          <Code>sk-</Code> key; manage keys, usage and top-ups in the portal. Billing is per token, reserved before each call and settled to
          what was used.
        </Text>
        <Group>
          {user ? (
            <Button component="a" href="/dashboard" size="md">
              Open the portal
            </Button>
          ) : (
            <>
              <Button component="a" href="/sign-in" size="md">
                Sign in
              </Button>
              <Button component="a" href="/sign-up" size="md" variant="default">
                Create an account
              </Button>
            </>
          )}
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          {ENDPOINTS.map((endpoint) => (
            <Card key={endpoint.title} withBorder radius="md" padding="lg">
              <Group gap="sm" mb="xs">
                <ThemeIcon variant="light" radius="md">
                  <endpoint.icon size={18} />
                </ThemeIcon>
                <Text fw={600}>{endpoint.title}</Text>
              </Group>
              <Text size="sm" c="dimmed" mb="sm">
                {endpoint.text}
              </Text>
              <Badge variant="light" color="gray" tt="none" radius="sm">
                {endpoint.path}
              </Badge>
            </Card>
          ))}
        </SimpleGrid>
        <Card withBorder radius="md" padding="lg">
          <Text fw={600} mb="xs">
            Try it
          </Text>
          <BaseUrlProvider appUrl={env().APP_URL ?? null}>
            <TryItSnippet />
            <Text size="sm" fw={500} mt="md" mb={4}>
              Base URL
            </Text>
            <ApiBaseUrls />
          </BaseUrlProvider>
          <Text size="sm" c="dimmed" mt="sm">
            The machine-readable description of every endpoint is at <Anchor href="/openapi.json">/openapi.json</Anchor>.
          </Text>
        </Card>
      </Stack>
    </Container>
  );
}
