"use client";
// Mantine's theme and notifications for every page (the root layout renders this around the app).
import type { ReactNode } from "react";
import { createTheme, MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";

export const theme = createTheme({
  primaryColor: "indigo",
  defaultRadius: "md",
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
  headings: { fontWeight: "650" },
  cursorType: "pointer",
});

export function Providers({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light">
      {/* Bottom right: at the top they covered the account menu and the page actions. */}
      <Notifications position="bottom-right" />
      {children}
    </MantineProvider>
  );
}
