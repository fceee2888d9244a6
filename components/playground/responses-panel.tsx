"use client";
// A streaming Responses run (POST /v1/responses, stream: true, the image_generation tool): every event is shown as
// it arrives (created, in progress, generating, heartbeats with the elapsed time, each image the moment its
// partial_image event lands, the revised prompt when its output item closes) and, when the run completes, the
// tokens of both parts and the cost read back from the ledger. The stream is read by use-responses-stream.ts and
// shown by responses-run.tsx; this file holds the request's form. Its fields build the request and its snippets
// as they are typed (and a run is a stream, not a single answer), so it keeps plain state rather than useApiForm.
import { useState } from "react";
import { Button, Card, Grid, Select, Stack, Textarea } from "@mantine/core";
import { IconPlayerPlay, IconPlayerStop } from "@tabler/icons-react";
import { useBaseUrl } from "@/components/base-url";
import { DEFAULT_IMAGE_SETTINGS, DEFAULT_INSTRUCTIONS, responsesBody, type ImageSettings } from "@/lib/portal/playground";
import { buildSnippets } from "@/lib/portal/snippets";
import type { ModelSource } from "@/lib/portal/server";
import { ImageControls, sizeProblem } from "./image-controls";
import { ResponsesRun } from "./responses-run";
import { SnippetCard } from "./snippet-card";
import { RunError, useResultsInView, type SendRequest } from "./shared";
import { useResponsesStream } from "./use-responses-stream";

export function ResponsesPanel({
  model,
  source,
  send,
  onKeyRejected,
}: {
  model: string;
  source: ModelSource | undefined;
  send: SendRequest;
  onKeyRejected: () => void;
}) {
  const [instructions, setInstructions] = useState(DEFAULT_INSTRUCTIONS);
  const [prompt, setPrompt] = useState("Draw a cozy reading corner with a cat asleep on a stack of books");
  const [action, setAction] = useState("auto");
  // partial_images: progress images while each image is made, shown in place of the image until it is done.
  const [previews, setPreviews] = useState("0");
  const [settings, setSettings] = useState<ImageSettings>(DEFAULT_IMAGE_SETTINGS);
  const stream = useResponsesStream(model, send);
  const body = responsesBody(model, instructions, prompt, { ...settings, size: settings.size.trim() }, action, Number(previews));
  const origin = useBaseUrl();
  const resultsView = useResultsInView();
  const invalid = Boolean(sizeProblem(settings.size)) || !prompt.trim() || !instructions.trim();

  async function run() {
    if (invalid) {
      if (!prompt.trim()) stream.setFieldErrors({ input: "Say what to draw" });
      if (!instructions.trim()) stream.setFieldErrors({ instructions: "Instructions are required" });
      return;
    }
    resultsView.bring();
    await stream.start(body, { previews: Number(previews), format: settings.format });
  }

  const running = stream.state === "running";
  const fieldErrors = stream.fieldErrors;

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Card withBorder radius="lg" padding="lg">
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void run();
            }}
            noValidate
            aria-label="Run a Responses request"
          >
            <Stack gap="md">
              <Textarea
                label="Instructions"
                description="Required: how the text model should behave."
                autosize
                minRows={2}
                maxRows={5}
                value={instructions}
                onChange={(event) => setInstructions(event.currentTarget.value)}
                error={fieldErrors.instructions}
                name="instructions"
              />
              <Textarea
                label="Input"
                description="What you ask for. Ask for several images to get several tool calls."
                autosize
                minRows={3}
                maxRows={8}
                value={prompt}
                onChange={(event) => setPrompt(event.currentTarget.value)}
                error={fieldErrors.input}
                name="input"
              />
              <Select
                label="Tool action"
                data={[
                  { value: "auto", label: "auto: the model decides" },
                  { value: "generate", label: "generate: always a new image" },
                ]}
                value={action}
                onChange={(value) => setAction(value ?? "auto")}
                allowDeselect={false}
                error={fieldErrors.action}
              />
              <ImageControls value={settings} onChange={setSettings} serverErrors={fieldErrors} />
              <Select
                label="Progress previews"
                description="partial_images: blurred previews while each image is made"
                data={[
                  { value: "0", label: "None" },
                  { value: "1", label: "1 preview" },
                  { value: "2", label: "2 previews" },
                  { value: "3", label: "3 previews" },
                ]}
                value={previews}
                onChange={(value) => setPreviews(value ?? "0")}
                allowDeselect={false}
                data-testid="previews-select"
              />
              {running ? (
                <Button size="md" color="red" variant="light" leftSection={<IconPlayerStop size={18} />} onClick={stream.stop}>
                  Stop
                </Button>
              ) : (
                <Button type="submit" size="md" disabled={invalid} leftSection={<IconPlayerPlay size={18} />}>
                  Run streaming request
                </Button>
              )}
            </Stack>
          </form>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack gap="md" ref={resultsView.ref}>
          <RunError error={stream.error} onRenewKey={onKeyRejected} />
          <ResponsesRun run={stream} source={source} />
          <SnippetCard snippets={buildSnippets(origin, "/v1/responses", body)} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
