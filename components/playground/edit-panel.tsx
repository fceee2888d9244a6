"use client";
// Image edits: POST /v1/images/edits as multipart, with up to 16 uploaded images and, optionally, a mask that is
// uploaded or drawn over the first image (mask-editor.tsx). A mask must match the first image's format, so a JPEG or
// WebP first image is converted to PNG once a mask is used. The result is shown with its cost, like a generation.
// Not a useApiForm: the request goes through the playground's `send` (session or pasted key, with Stop), its answer
// is an image rather than a JSON reply to `api`, and its fields build the snippets as they are typed.
import { useState } from "react";
import { Badge, Button, Card, EmptyState, FileInput, Grid, SegmentedControl, Stack, Text, Textarea } from "@mantine/core";
import { IconPhotoEdit, IconUpload } from "@tabler/icons-react";
import { errorFrom, fieldMessage, type ApiError } from "@/lib/portal/api";
import { useBaseUrl } from "@/components/base-url";
import { DEFAULT_IMAGE_SETTINGS, imageFields, type ImageSettings } from "@/lib/portal/playground";
import { buildEditSnippets } from "@/lib/portal/snippets";
import type { ModelSource } from "@/lib/portal/server";
import { ImageControls, sizeProblem } from "./image-controls";
import { SnippetCard } from "./snippet-card";
import { asPng, MaskEditor } from "./mask-editor";
import {
  CostLine,
  ImageCard,
  PendingResult,
  RunError,
  RunningLine,
  useImageResults,
  useResultsInView,
  useRun,
  wasStopped,
  type ImageAnswer,
  type SendRequest,
} from "./shared";

/** The spec's limit of input images per edit. */
const MAX_IMAGES = 16;
const FIELD_PARAMS = ["prompt", "size", "quality", "output_format", "output_compression", "image", "mask"];

export function EditPanel({
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
  const [prompt, setPrompt] = useState("Make it look like a winter evening");
  const [settings, setSettings] = useState<ImageSettings>(DEFAULT_IMAGE_SETTINGS);
  const [images, setImages] = useState<File[]>([]);
  const [maskMode, setMaskMode] = useState<"none" | "draw" | "upload">("none");
  const [mask, setMask] = useState<File | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const { results, add } = useImageResults(model);
  const [stopped, setStopped] = useState(false);
  const run = useRun();
  const origin = useBaseUrl();

  const fields = { model, prompt, ...imageFields({ ...settings, size: settings.size.trim() }) };
  const resultsView = useResultsInView();
  // Why Edit cannot run yet, said next to the button (null when it can).
  const blocked = !images.length
    ? "Choose an image to edit first."
    : !prompt.trim()
      ? "Say what to change first."
      : sizeProblem(settings.size)
        ? "Fix the size first."
        : maskMode === "draw" && !mask
          ? "Paint where the image may change, or set Mask to None."
          : maskMode === "upload" && !mask
            ? "Choose a mask file, or set Mask to None."
            : null;
  const invalid = blocked !== null;

  async function pick(files: File[]) {
    setMask(null);
    setImages(files.slice(0, MAX_IMAGES));
    setFieldErrors(files.length > MAX_IMAGES ? { image: `At most ${MAX_IMAGES} images; the first ${MAX_IMAGES} are used` } : {});
  }

  async function chooseMaskMode(mode: "none" | "draw" | "upload") {
    setMaskMode(mode);
    setMask(null);
    // The mask is a PNG, and the first image must have the mask's format.
    if (mode !== "none" && images[0] && images[0].type !== "image/png") {
      const png = await asPng(images[0]);
      setImages((current) => [png, ...current.slice(1)]);
    }
  }

  async function submit(event: { preventDefault(): void }) {
    event.preventDefault();
    if (invalid) return;
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, String(value));
    for (const image of images) form.append("image[]", image, image.name);
    if (mask && maskMode !== "none") form.append("mask", mask, mask.name);
    const signal = run.start();
    resultsView.bring();
    setStopped(false);
    setError(null);
    setFieldErrors({});
    const started = performance.now();
    try {
      const response = await send("/v1/images/edits", form, signal);
      if (!response.ok) {
        const failure = await errorFrom(response);
        const field = failure.param?.replace(/\[\d*\]$/, "") ?? null;
        if (field && FIELD_PARAMS.includes(field)) setFieldErrors({ [field]: fieldMessage(failure.message) });
        else setError(failure);
        return;
      }
      const answer = (await response.json()) as ImageAnswer;
      add(answer, response.headers.get("x-request-id"), {
        format: settings.format,
        label: prompt.slice(0, 40) || "edit",
        latencyMs: Math.round(performance.now() - started),
      });
    } catch (caught) {
      if (wasStopped(caught)) setStopped(true);
      else setError(caught as Error);
    } finally {
      run.finish();
    }
  }

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Card withBorder radius="lg" padding="lg">
          <form onSubmit={submit} noValidate aria-label="Edit images">
            <Stack gap="md">
              <FileInput
                label="Images"
                description={`PNG, JPEG or WebP, up to ${MAX_IMAGES}, 50 MB each. The first is the one a mask applies to.`}
                placeholder="Choose images"
                multiple
                accept="image/png,image/jpeg,image/webp"
                value={images}
                onChange={(files) => void pick(files)}
                leftSection={<IconUpload size={16} />}
                error={fieldErrors.image}
                clearable
                name="image"
              />
              <Textarea
                label="What to change"
                autosize
                minRows={2}
                maxRows={6}
                value={prompt}
                onChange={(event) => setPrompt(event.currentTarget.value)}
                error={fieldErrors.prompt}
                name="prompt"
              />
              <Stack gap={4}>
                <Text size="sm" fw={500} id="mask-label">
                  Mask
                </Text>
                <SegmentedControl
                  aria-labelledby="mask-label"
                  value={maskMode}
                  onChange={(value) => void chooseMaskMode(value as "none" | "draw" | "upload")}
                  data={[
                    { value: "none", label: "None" },
                    { value: "draw", label: "Draw", disabled: !images.length },
                    { value: "upload", label: "Upload", disabled: !images.length },
                  ]}
                />
                {maskMode === "upload" ? (
                  <FileInput
                    label="Mask file"
                    description="A PNG with an alpha channel, the size of the first image: transparent where it may change."
                    accept="image/png"
                    value={mask}
                    onChange={setMask}
                    error={fieldErrors.mask}
                    name="mask"
                    clearable
                  />
                ) : null}
                {maskMode === "draw" && images[0] ? <MaskEditor base={images[0]} onMask={setMask} /> : null}
                {maskMode !== "none" && mask ? (
                  <Badge variant="light" color="teal" data-testid="mask-ready">
                    Mask ready
                  </Badge>
                ) : null}
                {fieldErrors.mask && maskMode !== "upload" ? (
                  <Text size="xs" c="red">
                    {fieldErrors.mask}
                  </Text>
                ) : null}
              </Stack>
              <ImageControls value={settings} onChange={setSettings} serverErrors={fieldErrors} />
              {run.running ? (
                <RunningLine elapsedMs={run.elapsedMs} onStop={run.stop} what="Editing" />
              ) : (
                <Stack gap={4}>
                  <Button
                    type="submit"
                    size="md"
                    disabled={invalid}
                    leftSection={<IconPhotoEdit size={18} />}
                    aria-describedby={blocked ? "edit-blocked" : undefined}
                  >
                    Edit {images.length > 1 ? `${images.length} images` : "image"}
                  </Button>
                  {blocked ? (
                    <Text size="xs" c="dimmed" ta="center" id="edit-blocked" data-testid="edit-blocked">
                      {blocked}
                    </Text>
                  ) : null}
                </Stack>
              )}
              {stopped ? (
                <Text size="xs" c="dimmed">
                  Stopped. A request stopped before its image arrived is not charged.
                </Text>
              ) : null}
            </Stack>
          </form>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack gap="md" ref={resultsView.ref}>
          <RunError error={error} onRenewKey={onKeyRejected} />
          {run.running && results.length > 0 ? <PendingResult elapsedMs={run.elapsedMs} what="Editing" /> : null}
          {results.length === 0 ? (
            <Card withBorder radius="lg" py={56}>
              <EmptyState
                icon={<IconPhotoEdit size={28} />}
                variant="light"
                title={run.running ? "Editing…" : "Your edits appear here"}
                description="Upload an image, say what to change, and optionally mark where."
              />
            </Card>
          ) : (
            results.map((result) => (
              <ImageCard key={result.id} image={result} source={source}>
                <CostLine cost={result.cost} pending={result.cost === undefined} />
              </ImageCard>
            ))
          )}
          <SnippetCard
            snippets={buildEditSnippets(
              origin,
              fields,
              images.length ? images.map((image) => image.name) : ["image.png"],
              maskMode !== "none" ? "mask.png" : null,
            )}
          />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
