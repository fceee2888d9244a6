"use client";
// The landing page's example with this gateway's real base URL (components/base-url.tsx), ready to copy.
import { CopyField } from "@/components/feedback";
import { useBaseUrl } from "@/components/base-url";

export function TryItSnippet() {
  const base = useBaseUrl() || "http://localhost:3000";
  return (
    <CopyField
      testId="landing-example"
      label="Copy example"
      value={`import OpenAI from "openai";\nconst client = new OpenAI({ apiKey: process.env.GATEWAY_API_KEY, baseURL: "${base}/v1" });\nconst result = await client.images.generate({ model: "std-image-2", prompt: "a lighthouse at dawn", size: "1024x1024" });`}
    />
  );
}
