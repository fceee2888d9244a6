"use client";
// The Audio panel's transcription fields (audio-panel.tsx): the transcription model with its price per minute, and
// what to transcribe: the speech just made, or a file the user uploads.
import { FileInput, SegmentedControl, Select, Stack, Text } from "@mantine/core";
import { IconFileMusic } from "@tabler/icons-react";
import { usdPrecise } from "@/lib/portal/format";
import { MAX_AUDIO_UPLOAD_BYTES } from "@/lib/portal/playground";
import type { ModelSource } from "@/lib/portal/server";
import type { UserModel } from "@/lib/portal/types";
import { SourceBadge } from "./shared";

export type AudioFrom = "speech" | "file";

export function TranscribeFields({
  transcribers,
  transcriber,
  source,
  loaded,
  onPick,
  from,
  onFrom,
  file,
  onFile,
  hasSpeech,
  error,
}: {
  transcribers: UserModel[];
  transcriber: UserModel | undefined;
  source: ModelSource | undefined;
  /** Whether the model list has loaded. */
  loaded: boolean;
  onPick: (model: string | null) => void;
  from: AudioFrom;
  onFrom: (from: AudioFrom) => void;
  file: File | null;
  onFile: (file: File | null) => void;
  hasSpeech: boolean;
  /** The server's complaint about the file. */
  error: string | undefined;
}) {
  return (
    <>
      <Select
        label={
          <Text span size="sm" fw={500}>
            Transcription model <SourceBadge source={source} />
          </Text>
        }
        description={
          transcriber ? `Billed per second of audio: ${usdPrecise(transcriber.price.audioInputSecond * 60)} a minute.` : undefined
        }
        data={transcribers.map((entry) => entry.id)}
        value={transcriber?.id ?? null}
        onChange={onPick}
        allowDeselect={false}
        placeholder={loaded ? "No transcription model is open to you" : "Loading…"}
        data-testid="transcription-model-picker"
      />
      <Stack gap={4}>
        <Text size="sm" fw={500} id="transcribe-from-label">
          Audio
        </Text>
        <SegmentedControl
          aria-labelledby="transcribe-from-label"
          fullWidth
          value={from}
          onChange={(value) => onFrom(value as AudioFrom)}
          data={[
            { value: "speech", label: "The speech above" },
            { value: "file", label: "A file" },
          ]}
        />
      </Stack>
      {from === "file" ? (
        <FileInput
          label="Audio file"
          description={`mp3, mp4, m4a, wav, webm, ogg or flac; at most ${MAX_AUDIO_UPLOAD_BYTES / 1024 / 1024} MB.`}
          placeholder="Choose a file"
          accept="audio/*,video/mp4,video/webm"
          value={file}
          onChange={onFile}
          error={error}
          leftSection={<IconFileMusic size={16} />}
          clearable
          name="file"
        />
      ) : !hasSpeech ? (
        <Text size="xs" c="dimmed">
          Speak a text first, or choose a file.
        </Text>
      ) : error ? (
        <Text size="xs" c="red" role="alert">
          {error}
        </Text>
      ) : null}
    </>
  );
}
