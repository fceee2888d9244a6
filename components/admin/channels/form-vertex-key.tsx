"use client";
// A Vertex AI channel's credential: its service account's JSON key file, read here in the browser (FileReader) into
// the key box, which takes a pasted key too; the file's project_id fills the project input.
import { FileInput, Textarea } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { IconFileUpload } from "@tabler/icons-react";
import { useState } from "react";
import { keyDescription, type TypeHelp } from "./type-help";
import { type ChannelValues, serviceAccountProject } from "./values";

function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ""));
    reader.onerror = () => reject(reader.error ?? new Error("unreadable"));
    reader.readAsText(file);
  });
}

export function VertexKey({ form, help, hasKey }: { form: UseFormReturnType<ChannelValues>; help: TypeHelp; hasKey: boolean }) {
  const [file, setFile] = useState<File | null>(null);

  async function choose(picked: File | null) {
    setFile(picked);
    if (!picked) {
      form.setFieldValue("apiKey", "");
      return;
    }
    try {
      const text = await readText(picked);
      form.setFieldValue("apiKey", text);
      form.clearFieldError("apiKey");
      const project = serviceAccountProject(text);
      if (project) form.setFieldValue("project", project);
    } catch {
      form.setFieldError("apiKey", `Could not read ${picked.name}: choose the key file again`);
    }
  }

  return (
    <>
      <FileInput
        label="Service account key file"
        description="The JSON key of a service account allowed to use Vertex AI (IAM, Service accounts, Keys). It is read here in your browser into the box below."
        placeholder="Choose the .json key file"
        accept="application/json,.json"
        value={file}
        onChange={(picked) => void choose(picked)}
        leftSection={<IconFileUpload size={16} />}
        clearable
        clearButtonProps={{ "aria-label": "Remove the key file" }}
        name="serviceAccountFile"
      />
      <Textarea
        label={help.key.label}
        description={keyDescription(help, hasKey)}
        placeholder={help.key.placeholder}
        autosize
        minRows={2}
        maxRows={6}
        {...form.getInputProps("apiKey")}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        spellCheck={false}
        autoComplete="off"
        name="apiKey"
      />
    </>
  );
}
