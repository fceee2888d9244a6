// Sign-in, sign-up and password reset: one centred card on a quiet background.
import type { ReactNode } from "react";
import { Anchor, Box, Container, Group, Text, ThemeIcon } from "@mantine/core";
import { IconBolt } from "@tabler/icons-react";
import { ColorSchemeToggle } from "@/components/color-scheme-toggle";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <Box className="auth-background" component="main" id="main">
      <Group justify="flex-end" p="md" pb={0}>
        <ColorSchemeToggle />
      </Group>
      <Container size={440} pt={{ base: 8, sm: 40 }} pb={{ base: 32, sm: 72 }}>
        <Group justify="center" mb="xl">
          <Anchor component="a" href="/" underline="never" c="inherit" aria-label="Model Gateway home">
            <Group gap={10}>
              <ThemeIcon size={38} radius="md" variant="gradient" gradient={{ from: "indigo", to: "violet", deg: 135 }}>
                <IconBolt size={22} />
              </ThemeIcon>
              <Text fw={700} fz={22}>
                Model Gateway
              </Text>
            </Group>
          </Anchor>
        </Group>
        {children}
        <Text ta="center" size="xs" c="dimmed" mt="xl">
          One endpoint for image and text models · self-hosted
        </Text>
      </Container>
    </Box>
  );
}
