// The inline images of a /v1/responses request as temporary files, for the code that edits images from files (the
// image adapters' edit() and the simulator's renderEdit). Written once, on the first edit, and removed when the
// response ends, whichever way it ends.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ImageUpload } from "@/lib/providers/image-types";
import type { InputImage } from "@/lib/wire/responses-request";

export class InputImageFiles {
  private written: Promise<{ directory: string; uploads: ImageUpload[] }> | null = null;
  private removed = false;

  constructor(private readonly images: InputImage[]) {}

  /** The images as uploads (`image[]`, in order), written on first call. */
  async uploads(): Promise<ImageUpload[]> {
    if (this.removed) throw new Error("the response has ended; its input files are gone");
    this.written ??= (async () => {
      const directory = await mkdtemp(path.join(tmpdir(), "gateway-responses-"));
      const uploads: ImageUpload[] = [];
      for (const [index, image] of this.images.entries()) {
        const extension = image.info.format === "jpeg" ? "jpg" : image.info.format;
        const file = path.join(directory, `input-${index + 1}.${extension}`);
        await writeFile(file, image.buffer);
        uploads.push({
          field: "image[]",
          filename: `input-${index + 1}.${extension}`,
          contentType: `image/${image.info.format}`,
          path: file,
          size: image.buffer.length,
          info: image.info,
        });
      }
      return { directory, uploads };
    })();
    return (await this.written).uploads;
  }

  async cleanup(): Promise<void> {
    this.removed = true;
    if (!this.written) return;
    const { directory } = await this.written.catch(() => ({ directory: null }));
    if (directory) await rm(directory, { recursive: true, force: true }).catch(() => undefined);
  }
}
