"use client";
// The 403 page of the operator section for a signed-in user who is not an admin.
import Link from "next/link";
import { Button, EmptyState } from "@mantine/core";
import { IconLock } from "@tabler/icons-react";

export function Forbidden() {
  return (
    <EmptyState
      mt={80}
      size="lg"
      variant="light"
      color="red"
      icon={<IconLock size={28} />}
      title="403 · Operators only"
      description="This part of the portal is for the gateway's operators. Your account does not have access to it."
      data-testid="forbidden"
    >
      <EmptyState.Actions>
        <Button component={Link} href="/dashboard">
          Back to your dashboard
        </Button>
      </EmptyState.Actions>
    </EmptyState>
  );
}
