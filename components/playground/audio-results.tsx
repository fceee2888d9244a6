"use client";
// The Audio panel's results: the speech just made, playable in an <audio> element and downloadable, and the latest
// transcript, each with its cost read back from the ledger (CostLine in shared.tsx).
import { useEffect } from "react";
import { Badge, Blockquote, Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { IconDownload } from "@tabler/icons-react";
import { count } from "@/lib/portal/format";
import { formatSeconds } from "@/lib/portal/playground";
import type { ModelSource } from "@/lib/portal/server";
import { CostLine, SourceBadge } from "./shared";

/** A speech made in the panel: its audio as a blob (and an object URL for the player), what was asked, its cost. */
export type SpeechResult = {
  id: number;
  blob: Blob;
  url: string;
  model: string;
  voice: string;
  format: string;
  characters: number;
  latencyMs: number;
  requestId: string | null;
  cost?: number | null;
};

export type TranscriptResult = {
  id: number;
  text: string;
  model: string;
  /** "the speech above" or the uploaded file's name. */
  of: string;
  /** Seconds of audio: what the upstream reported, else what the browser measured; null when neither is known. */
  seconds: number | null;
  latencyMs: number;
  requestId: string | null;
  cost?: number | null;
};

/** The length of an audio file as the browser reads it (null if it cannot, or not within five seconds). */
export function measureDuration(blob: Blob): Promise<number | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(blob);
    const audio = new Audio();
    const done = (value: number | null) => {
      clearTimeout(timer);
      audio.removeAttribute("src");
      URL.revokeObjectURL(url);
      resolve(value);
    };
    const timer = setTimeout(() => done(null), 5_000);
    audio.preload = "metadata";
    audio.onloadedmetadata = () => done(Number.isFinite(audio.duration) ? audio.duration : null);
    audio.onerror = () => done(null);
    audio.src = url;
  });
}

export function SpeechCard({ speech, source }: { speech: SpeechResult; source: ModelSource | undefined }) {
  // The object URL lives as long as this speech is shown.
  useEffect(() => () => URL.revokeObjectURL(speech.url), [speech.url]);
  return (
    <Card withBorder radius="lg" padding="lg" data-testid="speech-result">
      <Stack gap="sm">
        <Title order={2} fz="lg">
          Speech
        </Title>
        {/* biome-ignore lint/a11y/useMediaCaption: the text it speaks is in the form beside it */}
        <audio controls preload="metadata" src={speech.url} data-testid="speech-audio" aria-label="The speech" style={{ width: "100%" }} />
        <Group gap={6} wrap="wrap">
          <SourceBadge source={source} />
          <Badge variant="default" tt="none">
            {speech.voice}
          </Badge>
          <Badge variant="default" tt="none">
            {speech.format}
          </Badge>
          <Badge variant="default" tt="none">
            {count(speech.characters)} characters
          </Badge>
          <Badge variant="default" tt="none">
            {formatSeconds(speech.latencyMs)}
          </Badge>
        </Group>
        <Group justify="space-between" wrap="wrap">
          <CostLine cost={speech.cost} pending={speech.cost === undefined} />
          <Button
            size="xs"
            variant="default"
            component="a"
            href={speech.url}
            download={`speech.${speech.format}`}
            leftSection={<IconDownload size={14} />}
          >
            Download
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

export function TranscriptCard({ transcript, source }: { transcript: TranscriptResult; source: ModelSource | undefined }) {
  return (
    <Card withBorder radius="lg" padding="lg" data-testid="transcript-result">
      <Stack gap="sm">
        <Title order={2} fz="lg">
          Transcript
        </Title>
        <Blockquote p="sm" data-testid="transcript">
          {transcript.text || <Text c="dimmed">(no words)</Text>}
        </Blockquote>
        <Group gap={6} wrap="wrap">
          <SourceBadge source={source} />
          <Badge variant="default" tt="none">
            {transcript.model}
          </Badge>
          <Badge variant="default" tt="none">
            of {transcript.of}
          </Badge>
          {transcript.seconds !== null ? (
            <Badge variant="default" tt="none" data-testid="transcript-seconds">
              {transcript.seconds.toFixed(2)} s of audio
            </Badge>
          ) : null}
          <Badge variant="default" tt="none">
            {formatSeconds(transcript.latencyMs)}
          </Badge>
        </Group>
        <CostLine cost={transcript.cost} pending={transcript.cost === undefined} />
      </Stack>
    </Card>
  );
}
