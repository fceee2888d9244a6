"use client";
// The app shell around every signed-in page: header (menu button on small screens, product name, colour scheme,
// account menu with sign-out), navigation (the operator section only for admins) and the page.
import type { ReactNode } from "react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { dropPlaygroundKeysOnSignOut } from "@/lib/portal/playground-key";
import { ApiBaseUrls, BaseUrlProvider } from "@/components/base-url";
import { AppShell, Avatar, Badge, Box, Burger, Group, Menu, NavLink, ScrollArea, Text, ThemeIcon, UnstyledButton } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import {
  IconBolt,
  IconChartBar,
  IconChevronDown,
  IconGauge,
  IconGift,
  IconKey,
  IconLogout,
  IconMail,
  IconReceipt,
  IconServer,
  IconShieldLock,
  IconSparkles,
  IconTicket,
  IconUsers,
  IconUsersGroup,
  IconSettings,
  IconHistory,
  IconCube,
  IconSpeakerphone,
} from "@tabler/icons-react";
import { ColorSchemeToggle } from "@/components/color-scheme-toggle";

export type ShellUser = { email: string; role: "user" | "admin" };

type Item = {
  href: string;
  label: string;
  icon: typeof IconGauge;
  description?: string /** Active only on this exact path (the operator overview at /admin). */;
  exact?: boolean;
};

const PORTAL_ITEMS: Item[] = [
  { href: "/dashboard", label: "Dashboard", icon: IconGauge },
  { href: "/playground", label: "Playground", icon: IconSparkles },
  { href: "/models", label: "Models & pricing", icon: IconCube },
  { href: "/keys", label: "API keys", icon: IconKey },
  { href: "/usage", label: "Usage", icon: IconChartBar },
  { href: "/redeem", label: "Redeem a code", icon: IconGift },
  { href: "/security", label: "Security", icon: IconShieldLock },
];

const ADMIN_ITEMS: Item[] = [
  { href: "/admin", label: "Overview", icon: IconChartBar, exact: true },
  { href: "/admin/channels", label: "Channels", icon: IconServer },
  { href: "/admin/users", label: "Users", icon: IconUsers },
  { href: "/admin/groups", label: "Groups & prices", icon: IconUsersGroup },
  { href: "/admin/codes", label: "Redeem codes", icon: IconTicket },
  { href: "/admin/usage", label: "Ledger", icon: IconReceipt },
  { href: "/admin/outbox", label: "Email outbox", icon: IconMail },
  { href: "/admin/announcements", label: "Announcements", icon: IconSpeakerphone },
  { href: "/admin/audit", label: "Audit log", icon: IconHistory },
  { href: "/admin/settings", label: "Settings", icon: IconSettings },
];

/**
 * Light/dark switch. What it renders must not depend on the stored scheme (the server cannot know it, and a
 * difference would break hydration), so both icons are rendered and CSS shows the right one.
 */
/**
 * Sign-out: the playground's keys of this browser are revoked and forgotten, then next-auth's sign-out revokes the
 * session on the server (lib/auth/options.ts, events.signOut). No redirect by next-auth: without NEXTAUTH_URL it
 * would build the URL from localhost:3000.
 */
async function signOutHere(): Promise<void> {
  try {
    await dropPlaygroundKeysOnSignOut();
    await signOut({ redirect: false });
  } finally {
    window.location.assign("/sign-in");
  }
}

export function PortalShell({ user, appUrl = null, children }: { user: ShellUser; appUrl?: string | null; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const pathname = usePathname();

  const link = (item: Item) => (
    <NavLink
      key={item.href}
      component={Link}
      href={item.href}
      label={item.label}
      leftSection={<item.icon size={18} stroke={1.6} />}
      active={pathname === item.href || (!item.exact && pathname.startsWith(`${item.href}/`))}
      onClick={close}
      variant="light"
      style={{ borderRadius: "var(--mantine-radius-md)" }}
    />
  );

  return (
    <BaseUrlProvider appUrl={appUrl}>
      <AppShell header={{ height: 60 }} navbar={{ width: 250, breakpoint: "sm", collapsed: { mobile: !opened } }} padding="lg">
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap">
              <Burger
                opened={opened}
                onClick={toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label={opened ? "Close navigation" : "Open navigation"}
              />
              <UnstyledButton component={Link} href="/dashboard" aria-label="Model Gateway home">
                <Group gap={8} wrap="nowrap">
                  <ThemeIcon size={32} radius="md" variant="gradient" gradient={{ from: "indigo", to: "violet", deg: 135 }}>
                    <IconBolt size={20} />
                  </ThemeIcon>
                  <Text fw={700} size="lg" visibleFrom="xs">
                    Model Gateway
                  </Text>
                </Group>
              </UnstyledButton>
            </Group>
            <Group gap="sm" wrap="nowrap">
              <ColorSchemeToggle />
              <Menu position="bottom-end" width={240} withinPortal>
                <Menu.Target>
                  <UnstyledButton data-testid="account-menu" className="account-button" title="Account menu">
                    <Group gap={8} wrap="nowrap">
                      <Avatar size={30} radius="xl" color="indigo" aria-hidden>
                        {user.email.slice(0, 1).toUpperCase()}
                      </Avatar>
                      <Box visibleFrom="sm" maw={200}>
                        <Text size="sm" fw={500} truncate>
                          {user.email}
                        </Text>
                      </Box>
                      <IconChevronDown size={14} />
                    </Group>
                  </UnstyledButton>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Label>
                    Signed in as{" "}
                    {user.role === "admin" ? (
                      <Badge size="xs" variant="light" ml={4}>
                        admin
                      </Badge>
                    ) : null}
                  </Menu.Label>
                  <Menu.Item disabled>
                    <Text size="sm" truncate>
                      {user.email}
                    </Text>
                  </Menu.Item>
                  <Menu.Divider />
                  <Menu.Item component={Link} href="/security" leftSection={<IconShieldLock size={16} />}>
                    Security
                  </Menu.Item>
                  <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={() => void signOutHere()}>
                    Sign out
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            </Group>
          </Group>
        </AppShell.Header>

        <AppShell.Navbar p="sm" aria-label="Main navigation">
          {/* Scrolls, with its scrollbar shown, when the window is too short for every link (minHeight 0 lets it shrink). */}
          <AppShell.Section grow component={ScrollArea} type="auto" scrollbars="y" style={{ minHeight: 0 }}>
            <Box component="nav" aria-label="Portal">
              {PORTAL_ITEMS.map(link)}
            </Box>
            {user.role === "admin" ? (
              <Box component="nav" aria-label="Operator" mt="lg">
                <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" mb={6}>
                  Operator
                </Text>
                {ADMIN_ITEMS.map(link)}
              </Box>
            ) : null}
          </AppShell.Section>
          <AppShell.Section>
            <Box px="sm" py="xs">
              <Text size="xs" fw={700} c="dimmed" tt="uppercase" mb={4}>
                API base URL
              </Text>
              <ApiBaseUrls />
            </Box>
          </AppShell.Section>
        </AppShell.Navbar>

        <AppShell.Main id="main" tabIndex={-1} className="portal-main">
          {children}
        </AppShell.Main>
      </AppShell>
    </BaseUrlProvider>
  );
}
