"use client";
// Mantine's theme and notifications, and the data client behind `useApi` (lib/portal/api.ts), for every page (the
// root layout renders this around the app).
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import {
  Anchor,
  createTheme,
  Drawer,
  FileInput,
  MantineProvider,
  Modal,
  Notification,
  ScrollArea,
  type CSSVariablesResolver,
} from "@mantine/core";
import { Notifications } from "@mantine/notifications";

export const theme = createTheme({
  primaryColor: "indigo",
  defaultRadius: "md",
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
  headings: { fontWeight: "650" },
  cursorType: "pointer",
  // Drawers, menus and modals appear without sliding or fading for people whose system asks for less motion (and in
  // the browser tests, which ask for it: tests/helpers/browser.ts): an accessibility check run while a drawer was
  // still fading in measured its text against a half-transparent page.
  respectReducedMotion: true,
  // WCAG AA contrast (axe, tests/e2e/accessibility.test.ts): indigo 7 under white button text is 6:1 where the
  // default shade 6 was 4.3:1. The dimmed and light-variant text colours: cssVariablesResolver below.
  primaryShade: { light: 7, dark: 5 },
  components: {
    // Links inside text are told apart by more than colour.
    Anchor: Anchor.extend({ defaultProps: { underline: "always" } }),
    // Dialogs' close buttons have a name for screen readers.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close" } } }),
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close" } } }),
    // A file input's clear button and a notification's close button too. A file input's placeholder is text on the
    // page (not an input's ::placeholder), and the text under a notification's title is read too: both in the dimmed
    // colour (Mantine's are gray 5 and gray 6, 2.2:1 and 3.3:1 on white).
    FileInput: FileInput.extend({
      defaultProps: { clearButtonProps: { "aria-label": "Remove the file" } },
      styles: { placeholder: { color: "var(--mantine-color-dimmed)" } },
    }),
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { "aria-label": "Close" } },
      styles: (_theme, props) => (props.title ? { description: { color: "var(--mantine-color-dimmed)" } } : {}),
    }),
    // A region that scrolls can be reached and scrolled with the keyboard.
    ScrollArea: ScrollArea.extend({ defaultProps: { viewportProps: { tabIndex: 0 } } }),
  },
});

/**
 * WCAG AA contrast in the light scheme: secondary ("dimmed") text in gray 7 (Mantine's gray 6 is 3.3:1 on white), a
 * field's error in red 9 (Mantine's red 6 is 3.3:1; red 9 is 5.5:1), and the text of light badges, alerts and buttons darker than shade 9 of their colour (Mantine's default, shade 9, is
 * still under 4.5:1 on the pale background for orange, teal and green at badge sizes).
 */
const LIGHT_TEXT_COLORS = ["indigo", "teal", "orange", "red", "violet", "grape", "gray", "blue", "yellow", "green", "cyan", "pink", "lime"];
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    "--mantine-color-error": "var(--mantine-color-red-9)",
    // Shade 9 itself is 3.9:1 for orange on its pale badge; a quarter of black on top clears 4.5:1 for every colour
    // but yellow, which it leaves at 4.7:1 on white and under 4.5:1 on a striped or hovered table row (a "cancelled"
    // ledger row, axe): yellow gets 45% black, 7.4:1 on white.
    ...Object.fromEntries(
      LIGHT_TEXT_COLORS.map((color) => [
        `--mantine-color-${color}-light-color`,
        `color-mix(in srgb, var(--mantine-color-${color}-9) ${color === "yellow" ? 55 : 75}%, black)`,
      ]),
    ),
  },
  dark: {},
});

/**
 * No retries (an error is shown at once, with its own "Try again") and no refetch on focus (a page reloads what it
 * changed; a form being edited is never replaced behind the user's back).
 */
function newQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(newQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={cssVariablesResolver}>
        {/* Bottom right: at the top they covered the account menu and the page actions. */}
        <Notifications position="bottom-right" />
        {children}
      </MantineProvider>
    </QueryClientProvider>
  );
}
