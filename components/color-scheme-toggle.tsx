"use client";
// Light or dark: follows the OS until someone chooses; offered on every page, signed in or not.
import { ActionIcon, Tooltip, useComputedColorScheme, useMantineColorScheme } from "@mantine/core";
import { IconMoon, IconSun } from "@tabler/icons-react";

export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme("light", { getInitialValueInEffect: true });
  return (
    <Tooltip label="Light or dark mode">
      <ActionIcon
        variant="default"
        size="lg"
        aria-label="Switch between light and dark mode"
        onClick={() => setColorScheme(computed === "dark" ? "light" : "dark")}
      >
        <IconSun size={18} className="icon-dark-only" />
        <IconMoon size={18} className="icon-light-only" />
      </ActionIcon>
    </Tooltip>
  );
}
