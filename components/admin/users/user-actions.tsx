"use client";
// The actions menu of one user row. Each action that changes something asks first: it hands the page a
// `ConfirmRequest` (a PATCH of the user, or one of the operator tools, POST to a sub-path).
import { ActionIcon, Menu } from "@mantine/core";
import {
  IconCoin,
  IconDots,
  IconListDetails,
  IconMailForward,
  IconShieldCheck,
  IconShieldOff,
  IconUserCheck,
  IconUserOff,
} from "@tabler/icons-react";
import type { AdminUser } from "@/lib/portal/types";

export type ConfirmRequest = {
  user: AdminUser;
  /** The dialog's title: what is about to happen ("Please confirm" when not given). */
  title?: string;
  text: string;
  /** The confirming button's label ("Confirm" when not given). */
  confirmLabel?: string;
  danger?: boolean;
  change?: { status?: string; role?: string };
  tool?: "reset-2fa" | "send-reset";
  done: string;
};

export type UserActionHandlers = {
  onView: (user: AdminUser) => void;
  onAdjust: (user: AdminUser) => void;
  onConfirm: (request: ConfirmRequest) => void;
};

export function UserActions({ user, self, onView, onAdjust, onConfirm }: { user: AdminUser; self: boolean } & UserActionHandlers) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" aria-label={`Actions for ${user.email}`}>
          <IconDots size={16} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<IconListDetails size={16} />} onClick={() => onView(user)}>
          Keys, usage and history
        </Menu.Item>
        <Menu.Item leftSection={<IconCoin size={16} />} onClick={() => onAdjust(user)}>
          Adjust balance
        </Menu.Item>
        <Menu.Item
          leftSection={<IconMailForward size={16} />}
          onClick={() =>
            onConfirm({
              user,
              tool: "send-reset",
              done: "Reset link sent",
              title: `Send ${user.email} a reset link?`,
              text: `Mail ${user.email} a link to choose a new password? You will not see the link or the password.`,
            })
          }
        >
          Send a password reset link
        </Menu.Item>
        {user.totpEnabled ? (
          <Menu.Item
            color="red"
            leftSection={<IconShieldOff size={16} />}
            onClick={() =>
              onConfirm({
                user,
                tool: "reset-2fa",
                danger: true,
                done: "Two-factor authentication reset",
                title: `Reset two-factor authentication for ${user.email}?`,
                confirmLabel: "Reset two-factor authentication",
                text: `This turns two-factor authentication off for ${user.email}: their authenticator app and backup codes stop working, and every browser they are signed in with is signed out. They sign in with their password alone and will have to set two-factor authentication up again on their Security page. They get an email saying that an operator did this. Do it only when you have confirmed who is asking (a lost phone).`,
              })
            }
          >
            Reset two-factor authentication
          </Menu.Item>
        ) : null}
        {!self ? (
          <>
            <Menu.Item
              leftSection={<IconShieldCheck size={16} />}
              onClick={() =>
                onConfirm({
                  user,
                  change: { role: user.role === "admin" ? "user" : "admin" },
                  done: "Role changed",
                  text: user.role === "admin" ? `Remove operator rights from ${user.email}?` : `Make ${user.email} an operator (admin)?`,
                })
              }
            >
              {user.role === "admin" ? "Remove admin role" : "Make admin"}
            </Menu.Item>
            {user.status === "active" ? (
              <Menu.Item
                color="red"
                leftSection={<IconUserOff size={16} />}
                onClick={() =>
                  onConfirm({
                    user,
                    change: { status: "disabled" },
                    danger: true,
                    done: "User disabled",
                    text: `Disable ${user.email}? Their sessions end and their keys stop working.`,
                  })
                }
              >
                Disable
              </Menu.Item>
            ) : (
              <Menu.Item
                leftSection={<IconUserCheck size={16} />}
                onClick={() => onConfirm({ user, change: { status: "active" }, done: "User enabled", text: `Enable ${user.email} again?` })}
              >
                Enable
              </Menu.Item>
            )}
          </>
        ) : null}
      </Menu.Dropdown>
    </Menu>
  );
}
