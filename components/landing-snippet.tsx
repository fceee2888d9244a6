"use client";
// The landing page's example with this gateway's real base URL (components/base-url.tsx), ready to copy. Its lines are
// kept whole: a long one scrolls sideways inside the block (app/globals.css, .snippet-code) rather than breaking
// mid-token, and the block takes keyboard focus so keys can scroll it too.
import { Code } from "@mantine/core";
import { CopyIcon } from "@/components/feedback";
import { useBaseUrl } from "@/components/base-url";

export function TryItSnippet() {
  const base = useBaseUrl() || "http://localhost:3000";
  const example = `import OpenAI from "openai";\nconst client = new OpenAI({ apiKey: process.env.GATEWAY_API_KEY, baseURL: "${base}/v1" });\nconst result = await client.images.generate({ model: "std-image-2", prompt: "a lighthouse at dawn", size: "1024x1024" });`;
  return (
    <div className="snippet">
      <div className="snippet-copy">
        <CopyIcon value={example} label="Copy example" />
      </div>
      <Code block className="snippet-code" data-testid="landing-example" tabIndex={0}>
        {example}
      </Code>
    </div>
  );
}
