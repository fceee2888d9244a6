"use client";
// Audio: POST /v1/audio/speech (JSON; the answer is the audio file's bytes, played in an <audio> element) and
// POST /v1/audio/transcriptions (multipart: the speech just made, or a file the user uploads), through the
// playground's `send` (session or pasted key, with Stop). Each result shows its cost read back from the ledger, as
// the other panels do. Not a useApiForm: the answers are audio and transcripts rather than JSON replies to `api`.
import { useState } from "react";
import { Button, Card, EmptyState, Grid, SegmentedControl, Select, Stack, Text, Textarea, Title } from "@mantine/core";
import { IconMicrophone, IconVolume } from "@tabler/icons-react";
import { errorFrom, fieldMessage, type ApiError } from "@/lib/portal/api";
import { count } from "@/lib/portal/format";
import {
  characterCount,
  findLedgerRow,
  PLAYABLE_FORMATS,
  speechBody,
  VOICES,
  type PlayableFormat,
  type Voice,
} from "@/lib/portal/playground";
import { buildAudioSnippets } from "@/lib/portal/snippets";
import { TRANSCRIPTION_MODEL } from "@/lib/catalog/models";
import type { ModelSource } from "@/lib/portal/server";
import type { UserModel } from "@/lib/portal/types";
import { useBaseUrl } from "@/components/base-url";
import { SnippetCard } from "./snippet-card";
import { measureDuration, SpeechCard, TranscriptCard, type SpeechResult, type TranscriptResult } from "./audio-results";
import { TranscribeFields, type AudioFrom } from "./audio-transcribe-fields";
import { RunError, RunningLine, useRun, wasStopped, type SendRequest } from "./shared";

const SPEECH_PARAMS = ["input", "voice", "response_format"];
/** The vendor's limit, until the catalog has loaded (its context window of a speech model). */
const DEFAULT_LIMIT = 4_096;

export function AudioPanel({
  model,
  source,
  send,
  onKeyRejected,
  catalog,
  sources,
}: {
  model: string;
  source: ModelSource | undefined;
  send: SendRequest;
  onKeyRejected: () => void;
  /** GET /api/user/models: the transcription models and the speech model's limit and price. */
  catalog: UserModel[] | undefined;
  sources: Record<string, ModelSource>;
}) {
  const [text, setText] = useState("Hello from the model gateway. This is the playground speaking.");
  const [voice, setVoice] = useState<Voice>("alloy");
  const [format, setFormat] = useState<PlayableFormat>("mp3");
  const [speech, setSpeech] = useState<SpeechResult | null>(null);
  const [transcript, setTranscript] = useState<TranscriptResult | null>(null);
  const [from, setFrom] = useState<AudioFrom>("speech");
  const [file, setFile] = useState<File | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const speaking = useRun();
  const transcribing = useRun();
  const origin = useBaseUrl();

  const transcribers = catalog?.filter((entry) => entry.kind === "transcription") ?? [];
  const transcriber = transcribers.find((entry) => entry.id === picked) ?? transcribers[0];
  const limit = catalog?.find((entry) => entry.id === model)?.contextWindow || DEFAULT_LIMIT;
  const characters = characterCount(text);
  const body = speechBody(model, text, voice, format);
  const audio = from === "speech" ? speech?.blob : file;

  async function speak(event: { preventDefault(): void }) {
    event.preventDefault();
    if (!text.trim()) return setFieldErrors({ input: "Type the text to speak" });
    if (characters > limit) return setFieldErrors({ input: `At most ${count(limit)} characters` });
    const signal = speaking.start();
    setError(null);
    setFieldErrors({});
    const started = performance.now();
    try {
      const response = await send("/v1/audio/speech", JSON.stringify(body), signal);
      if (!response.ok) {
        const failure = await errorFrom(response);
        if (failure.param && SPEECH_PARAMS.includes(failure.param)) setFieldErrors({ [failure.param]: fieldMessage(failure.message) });
        else setError(failure);
        return;
      }
      const blob = await response.blob();
      const id = Date.now();
      const requestId = response.headers.get("x-request-id");
      setSpeech({
        id,
        blob,
        url: URL.createObjectURL(blob),
        model,
        voice,
        format,
        characters,
        latencyMs: Math.round(performance.now() - started),
        requestId,
      });
      setFrom("speech");
      const setCost = (cost: number | null) => setSpeech((current) => (current?.id === id ? { ...current, cost } : current));
      void findLedgerRow(requestId, model)
        .then((row) => setCost(row ? row.cost : null))
        .catch(() => setCost(null));
    } catch (caught) {
      if (!wasStopped(caught)) setError(caught as Error);
    } finally {
      speaking.finish();
    }
  }

  async function transcribe(event: { preventDefault(): void }) {
    event.preventDefault();
    if (!audio || !transcriber) return;
    const name = from === "speech" ? `speech.${speech!.format}` : file!.name;
    const form = new FormData();
    form.append("model", transcriber.id);
    form.append("file", audio, name);
    const signal = transcribing.start();
    setError(null);
    setFieldErrors({});
    const started = performance.now();
    try {
      const response = await send("/v1/audio/transcriptions", form, signal);
      if (!response.ok) {
        const failure = await errorFrom(response);
        if (failure.param === "file") setFieldErrors({ file: fieldMessage(failure.message) });
        else setError(failure);
        return;
      }
      const answer = (await response.json()) as { text?: string; usage?: { seconds?: number } };
      const id = Date.now();
      const requestId = response.headers.get("x-request-id");
      const latencyMs = Math.round(performance.now() - started);
      const seconds = answer.usage?.seconds ?? (await measureDuration(audio));
      const of = from === "speech" ? "the speech" : name;
      setTranscript({ id, text: answer.text ?? "", model: transcriber.id, of, seconds, latencyMs, requestId });
      const setCost = (cost: number | null) => setTranscript((current) => (current?.id === id ? { ...current, cost } : current));
      void findLedgerRow(requestId, transcriber.id)
        .then((row) => setCost(row ? row.cost : null))
        .catch(() => setCost(null));
    } catch (caught) {
      if (!wasStopped(caught)) setError(caught as Error);
    } finally {
      transcribing.finish();
    }
  }

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Stack gap="md">
          <Card withBorder radius="lg" padding="lg">
            <form onSubmit={speak} noValidate aria-label="Speak a text">
              <Stack gap="md">
                <Title order={2} fz="lg">
                  Speak
                </Title>
                <Textarea
                  label="Text to speak"
                  description={`${count(characters)} of ${count(limit)} characters; billed per character.`}
                  autosize
                  minRows={3}
                  maxRows={8}
                  value={text}
                  onChange={(event) => setText(event.currentTarget.value)}
                  error={fieldErrors.input}
                  name="input"
                />
                <Grid gap="sm">
                  <Grid.Col span={{ base: 12, xs: 7 }}>
                    <Select
                      label="Voice"
                      data={[...VOICES]}
                      value={voice}
                      onChange={(value) => value && setVoice(value as Voice)}
                      allowDeselect={false}
                      error={fieldErrors.voice}
                      data-testid="voice-picker"
                    />
                  </Grid.Col>
                  <Grid.Col span={{ base: 12, xs: 5 }}>
                    <Stack gap={4}>
                      <Text size="sm" fw={500} id="speech-format-label">
                        Format
                      </Text>
                      <SegmentedControl
                        aria-labelledby="speech-format-label"
                        fullWidth
                        value={format}
                        onChange={(value) => setFormat(value as PlayableFormat)}
                        data={[...PLAYABLE_FORMATS]}
                      />
                      {fieldErrors.response_format ? (
                        <Text size="xs" c="red" role="alert">
                          {fieldErrors.response_format}
                        </Text>
                      ) : null}
                    </Stack>
                  </Grid.Col>
                </Grid>
                {speaking.running ? (
                  <RunningLine elapsedMs={speaking.elapsedMs} onStop={speaking.stop} what="Speaking" />
                ) : (
                  <Button type="submit" size="md" leftSection={<IconVolume size={18} />} disabled={!text.trim()}>
                    Speak
                  </Button>
                )}
              </Stack>
            </form>
          </Card>
          <Card withBorder radius="lg" padding="lg">
            <form onSubmit={transcribe} noValidate aria-label="Transcribe audio">
              <Stack gap="md">
                <Title order={2} fz="lg">
                  Transcribe
                </Title>
                <TranscribeFields
                  transcribers={transcribers}
                  transcriber={transcriber}
                  source={transcriber ? sources[transcriber.id] : undefined}
                  loaded={Boolean(catalog)}
                  onPick={setPicked}
                  from={from}
                  onFrom={setFrom}
                  file={file}
                  onFile={setFile}
                  hasSpeech={Boolean(speech)}
                  error={fieldErrors.file}
                />
                {transcribing.running ? (
                  <RunningLine elapsedMs={transcribing.elapsedMs} onStop={transcribing.stop} what="Transcribing" />
                ) : (
                  <Button type="submit" size="md" leftSection={<IconMicrophone size={18} />} disabled={!audio || !transcriber}>
                    Transcribe
                  </Button>
                )}
              </Stack>
            </form>
          </Card>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack gap="md">
          <RunError error={error} onRenewKey={onKeyRejected} />
          {speech ? <SpeechCard speech={speech} source={source} /> : null}
          {transcript ? <TranscriptCard transcript={transcript} source={sources[transcript.model]} /> : null}
          {!speech && !transcript ? (
            <Card withBorder radius="lg" py={56}>
              <EmptyState
                icon={<IconVolume size={28} />}
                variant="light"
                title="Your audio appears here"
                description="Speak a text to hear it, then transcribe it or a file of your own. Speech is billed per character, transcription per second of audio."
              />
            </Card>
          ) : null}
          <SnippetCard snippets={buildAudioSnippets(origin, body, transcriber?.id ?? TRANSCRIPTION_MODEL)} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
