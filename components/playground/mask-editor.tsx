"use client";
// Draw a mask over the first image of an edit: painted areas become fully transparent in the mask, which is where the
// model may change the image (spec: the mask is a PNG with an alpha channel, the size and format of the first image).
// Strokes are drawn opaque on an overlay shown at half opacity; the mask is an opaque PNG with the strokes cut out,
// handed to the form at the end of each stroke: what is painted is the mask, with no step to confirm it.
import { useEffect, useRef, useState } from "react";
import { Button, Group, Slider, Stack, Text } from "@mantine/core";

/** `file` as a PNG of the same pixels (a JPEG or WebP base image must become PNG to take a PNG mask). */
export async function asPng(file: File): Promise<File> {
  if (file.type === "image/png") return file;
  const bitmap = await createImageBitmap(file);
  const canvas = document.createElement("canvas");
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.getContext("2d")!.drawImage(bitmap, 0, 0);
  const blob = await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((value) => (value ? resolve(value) : reject(new Error("Could not convert the image to PNG"))), "image/png"),
  );
  return new File([blob], `${file.name.replace(/\.[^.]+$/, "") || "image"}.png`, { type: "image/png" });
}

export function MaskEditor({ base, onMask }: { base: File; onMask: (mask: File | null) => void }) {
  const picture = useRef<HTMLCanvasElement>(null);
  const overlay = useRef<HTMLCanvasElement>(null);
  const drawing = useRef(false);
  // Bumped by Clear and by a new base image, so a mask still being encoded from the strokes before is dropped.
  const generation = useRef(0);
  const [brush, setBrush] = useState(48);
  const [painted, setPainted] = useState(false);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);

  useEffect(() => {
    let cancelled = false;
    generation.current += 1;
    void createImageBitmap(base).then((bitmap) => {
      if (cancelled || !picture.current || !overlay.current) return;
      for (const canvas of [picture.current, overlay.current]) {
        canvas.width = bitmap.width;
        canvas.height = bitmap.height;
      }
      picture.current.getContext("2d")!.drawImage(bitmap, 0, 0);
      setSize({ width: bitmap.width, height: bitmap.height });
      setPainted(false);
    });
    return () => {
      cancelled = true;
    };
  }, [base]);

  function paint(event: React.PointerEvent<HTMLCanvasElement>) {
    if (!drawing.current || !overlay.current) return;
    const canvas = overlay.current;
    const box = canvas.getBoundingClientRect();
    const scale = canvas.width / box.width;
    const context = canvas.getContext("2d")!;
    context.fillStyle = "#fa5252";
    context.beginPath();
    context.arc((event.clientX - box.left) * scale, (event.clientY - box.top) * scale, (brush / 2) * scale, 0, Math.PI * 2);
    context.fill();
    setPainted(true);
  }

  function clear() {
    const canvas = overlay.current;
    if (canvas) canvas.getContext("2d")?.clearRect(0, 0, canvas.width, canvas.height);
    generation.current += 1;
    setPainted(false);
    onMask(null);
  }

  /** The mask of what is painted so far, handed to the form (at the end of each stroke). */
  async function use() {
    if (!overlay.current || !size) return;
    const started = generation.current;
    const mask = document.createElement("canvas");
    mask.width = size.width;
    mask.height = size.height;
    const context = mask.getContext("2d")!;
    context.fillStyle = "#000";
    context.fillRect(0, 0, size.width, size.height);
    context.globalCompositeOperation = "destination-out";
    context.drawImage(overlay.current, 0, 0);
    const blob = await new Promise<Blob | null>((resolve) => mask.toBlob(resolve, "image/png"));
    if (blob && started === generation.current) onMask(new File([blob], "mask.png", { type: "image/png" }));
  }

  return (
    <Stack gap="xs">
      <Text size="sm">Paint where the image may change.{size ? ` ${size.width}×${size.height} px.` : ""}</Text>
      <div style={{ position: "relative", width: "100%", lineHeight: 0 }}>
        <canvas ref={picture} style={{ width: "100%", height: "auto", borderRadius: 6 }} aria-hidden />
        <canvas
          ref={overlay}
          data-testid="mask-canvas"
          aria-label="Mask: paint the areas to edit"
          style={{ position: "absolute", inset: 0, width: "100%", height: "100%", opacity: 0.5, cursor: "crosshair", touchAction: "none" }}
          onPointerDown={(event) => {
            drawing.current = true;
            event.currentTarget.setPointerCapture(event.pointerId);
            paint(event);
          }}
          onPointerMove={paint}
          onPointerUp={() => {
            if (!drawing.current) return;
            drawing.current = false;
            void use();
          }}
          onPointerCancel={() => {
            if (!drawing.current) return;
            drawing.current = false;
            void use();
          }}
        />
      </div>
      <Group gap="md" wrap="wrap">
        <Stack gap={2} style={{ flex: "1 1 160px" }}>
          <Text size="xs" c="dimmed" id="brush-label">
            Brush {brush} px
          </Text>
          <Slider min={8} max={160} value={brush} onChange={setBrush} aria-labelledby="brush-label" thumbLabel="Brush size" />
        </Stack>
        <Button size="xs" variant="default" onClick={clear} disabled={!painted}>
          Clear
        </Button>
      </Group>
    </Stack>
  );
}
