"use client";
// The channel tests of the Channels page: one request through a channel's adapter (POST
// /api/admin/channels/{id}/test), or one per model of the channel, one after the other. Results are kept per
// channel until forgotten (after an edit they no longer describe it).
import { useCallback, useState } from "react";
import { api } from "@/lib/portal/api";
import type { AdminChannel, ChannelTestResult } from "@/lib/portal/types";

export type ChannelTests = {
  /** The last single test per channel id, or "running". */
  tests: Record<string, ChannelTestResult | "running">;
  /** The per-model results per channel id, in the order they arrived. */
  every: Record<string, ChannelTestResult[]>;
  test: (channel: AdminChannel) => Promise<void>;
  testEvery: (channel: AdminChannel) => Promise<void>;
  forget: (id: string) => void;
};

async function runTest(channel: AdminChannel, model?: string): Promise<ChannelTestResult> {
  try {
    return await api<ChannelTestResult>(`/api/admin/channels/${encodeURIComponent(channel.id)}/test`, {
      method: "POST",
      body: model === undefined ? undefined : { model },
    });
  } catch (error) {
    return { ok: false, latencyMs: 0, status: 0, model: model ?? "", kind: "chat", error: (error as Error).message, unpriced: [] };
  }
}

export function useChannelTests(): ChannelTests {
  const [tests, setTests] = useState<Record<string, ChannelTestResult | "running">>({});
  const [every, setEvery] = useState<Record<string, ChannelTestResult[]>>({});

  const test = useCallback(async (channel: AdminChannel) => {
    setTests((current) => ({ ...current, [channel.id]: "running" }));
    const result = await runTest(channel);
    setTests((current) => ({ ...current, [channel.id]: result }));
  }, []);

  const testEvery = useCallback(async (channel: AdminChannel) => {
    setEvery((current) => ({ ...current, [channel.id]: [] }));
    for (const model of channel.models) {
      const result = await runTest(channel, model);
      setEvery((current) => ({ ...current, [channel.id]: [...(current[channel.id] ?? []), result] }));
    }
  }, []);

  const forget = useCallback((id: string) => {
    setTests(({ [id]: _dropped, ...rest }) => rest);
    setEvery(({ [id]: _droppedAll, ...rest }) => rest);
  }, []);

  return { tests, every, test, testEvery, forget };
}
