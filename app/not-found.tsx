// The portal's own "not found" page: says what happened and offers a way back (instead of Next.js's default).
import { Button, Container, Group, Stack, Text, ThemeIcon, Title } from "@mantine/core";
import { IconBolt } from "@tabler/icons-react";

export const metadata = { title: "Page not found · Model Gateway" };

export default function NotFound() {
  return (
    <Container size="sm" py={96}>
      <Stack gap="lg" align="flex-start">
        <ThemeIcon size={44} radius="md" variant="gradient" gradient={{ from: "indigo", to: "violet" }}>
          <IconBolt size={26} />
        </ThemeIcon>
        <Title order={1}>This page does not exist</Title>
        <Text c="dimmed">
          The address may be mistyped, or the page moved. API clients: the endpoints live under <code>/v1</code>, described at{" "}
          <a href="/openapi.json">/openapi.json</a>.
        </Text>
        <Group>
          <Button component="a" href="/dashboard">
            Go to the dashboard
          </Button>
          <Button component="a" href="/" variant="default">
            Home page
          </Button>
        </Group>
      </Stack>
    </Container>
  );
}
