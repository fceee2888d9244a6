// Ready-to-copy code for the playground's current request: curl, and the official OpenAI / Anthropic SDKs in Python
// and Node (the Audio panel's: speak, then transcribe the file written). The key is read from the GATEWAY_API_KEY environment variable, never written into the snippet.
export type PlaygroundEndpoint =
  | "/v1/images/generations"
  | "/v1/images/edits"
  | "/v1/responses"
  | "/v1/chat/completions"
  | "/v1/messages"
  | "/v1/audio/speech"
  | "/v1/audio/transcriptions";

export type Snippets = { curl: string; python: string; node: string };

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A JSON value written as a Python literal (True/False/None), indented like JSON.stringify(value, null, 2). */
export function pythonLiteral(value: unknown, indent = 0): string {
  const pad = "    ".repeat(indent);
  const inner = "    ".repeat(indent + 1);
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (!value.length) return "[]";
    return `[\n${value.map((item) => inner + pythonLiteral(item, indent + 1)).join(",\n")},\n${pad}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  if (!entries.length) return "{}";
  return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${pythonLiteral(item, indent + 1)}`).join(",\n")},\n${pad}}`;
}

/** Keyword arguments for a Python call: `model="x",\n    prompt="y"`. */
function pythonKwargs(body: Record<string, unknown>): string {
  return Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `    ${key}=${pythonLiteral(value, 1)},`)
    .join("\n");
}

function nodeObject(body: Record<string, unknown>): string {
  return JSON.stringify(body, null, 2).replace(/\n/g, "\n  ");
}

export function buildSnippets(origin: string, endpoint: PlaygroundEndpoint, body: Record<string, unknown>): Snippets {
  const url = `${origin}${endpoint}`;
  const json = JSON.stringify(body, null, 2);
  const stream = body.stream === true;
  const authHeaders =
    endpoint === "/v1/messages"
      ? `  -H "x-api-key: $GATEWAY_API_KEY" \\\n  -H "anthropic-version: 2023-06-01" \\\n`
      : `  -H "Authorization: Bearer $GATEWAY_API_KEY" \\\n`;
  let curl = `curl ${stream ? "-N " : ""}-sS ${url} \\\n${authHeaders}  -H "Content-Type: application/json" \\\n  -d ${shellQuote(json)}`;
  if (endpoint === "/v1/images/generations") {
    const format = typeof body.output_format === "string" ? body.output_format : "png";
    curl += ` \\\n  | jq -r '.data[0].b64_json' | base64 --decode > image.${format}`;
  }

  const openaiPython = `import os\nfrom openai import OpenAI\n\nclient = OpenAI(base_url="${origin}/v1", api_key=os.environ["GATEWAY_API_KEY"])\n`;
  const openaiNode = `import OpenAI from "openai";\n\nconst client = new OpenAI({ baseURL: "${origin}/v1", apiKey: process.env.GATEWAY_API_KEY });\n`;

  if (endpoint === "/v1/images/generations") {
    const format = typeof body.output_format === "string" ? body.output_format : "png";
    return {
      curl,
      python: `import base64\n${openaiPython}\nresult = client.images.generate(\n${pythonKwargs(body)}\n)\nwith open("image.${format}", "wb") as file:\n    file.write(base64.b64decode(result.data[0].b64_json))\n`,
      node: `import { writeFileSync } from "node:fs";\n${openaiNode}\nconst result = await client.images.generate(${nodeObject(body)});\nwriteFileSync("image.${format}", Buffer.from(result.data[0].b64_json, "base64"));\n`,
    };
  }
  if (endpoint === "/v1/responses") {
    return {
      curl,
      python:
        `import base64\n${openaiPython}\nstream = client.responses.create(\n${pythonKwargs(body)}\n)\n` +
        `count = 0\nfor event in stream:\n    print(event.type)\n` +
        `    if event.type == "response.image_generation_call.partial_image":\n        count += 1\n` +
        `        with open(f"image-{count}.${String((body.tools as { output_format?: string }[] | undefined)?.[0]?.output_format ?? "png")}", "wb") as file:\n` +
        `            file.write(base64.b64decode(event.partial_image_b64))\n`,
      node:
        `import { writeFileSync } from "node:fs";\n${openaiNode}\nconst stream = await client.responses.create(${nodeObject(body)});\n` +
        `let count = 0;\nfor await (const event of stream) {\n  console.log(event.type);\n` +
        `  if (event.type === "response.image_generation_call.partial_image") {\n` +
        `    writeFileSync(\`image-\${++count}.${String((body.tools as { output_format?: string }[] | undefined)?.[0]?.output_format ?? "png")}\`, Buffer.from(event.partial_image_b64, "base64"));\n  }\n}\n`,
    };
  }
  if (endpoint === "/v1/chat/completions") {
    return {
      curl,
      python:
        `${openaiPython}\nstream = client.chat.completions.create(\n${pythonKwargs(body)}\n)\n` +
        `for chunk in stream:\n    if chunk.choices and chunk.choices[0].delta.content:\n        print(chunk.choices[0].delta.content, end="", flush=True)\nprint()\n`,
      node:
        `${openaiNode}\nconst stream = await client.chat.completions.create(${nodeObject(body)});\n` +
        `for await (const chunk of stream) {\n  process.stdout.write(chunk.choices[0]?.delta?.content ?? "");\n}\n`,
    };
  }
  const { stream: _stream, ...messageBody } = body;
  return {
    curl,
    python:
      `import os\nfrom anthropic import Anthropic\n\nclient = Anthropic(base_url="${origin}", api_key=os.environ["GATEWAY_API_KEY"])\n\n` +
      `with client.messages.stream(\n${pythonKwargs(messageBody)}\n) as stream:\n    for text in stream.text_stream:\n        print(text, end="", flush=True)\nprint()\n`,
    node:
      `import Anthropic from "@anthropic-ai/sdk";\n\nconst client = new Anthropic({ baseURL: "${origin}", apiKey: process.env.GATEWAY_API_KEY });\n\n` +
      `const stream = client.messages.stream(${nodeObject(messageBody)});\n` +
      `stream.on("text", (text) => process.stdout.write(text));\nawait stream.finalMessage();\n`,
  };
}

/** An image edit: multipart with the images (and the mask) as files; `fields` are the text fields sent. */
export function buildEditSnippets(
  origin: string,
  fields: Record<string, string | number>,
  images: string[],
  mask: string | null,
): Snippets {
  const format = typeof fields.output_format === "string" ? fields.output_format : "png";
  const formLines = [
    ...Object.entries(fields).map(([name, value]) => `  -F ${shellQuote(`${name}=${value}`)} \\\n`),
    ...images.map((file) => `  -F ${shellQuote(`image[]=@${file}`)} \\\n`),
    ...(mask ? [`  -F ${shellQuote(`mask=@${mask}`)} \\\n`] : []),
  ].join("");
  const curl = `curl -sS ${origin}/v1/images/edits \\\n  -H "Authorization: Bearer $GATEWAY_API_KEY" \\\n${formLines}  | jq -r '.data[0].b64_json' | base64 --decode > edited.${format}`;
  const kwargs = Object.entries(fields)
    .map(([name, value]) => `    ${name}=${typeof value === "number" ? value : JSON.stringify(value)},`)
    .join("\n");
  const python =
    `import base64, os\nfrom openai import OpenAI\n\nclient = OpenAI(base_url="${origin}/v1", api_key=os.environ["GATEWAY_API_KEY"])\n\n` +
    `result = client.images.edit(\n${kwargs}\n    image=[${images.map((file) => `open(${JSON.stringify(file)}, "rb")`).join(", ")}],\n` +
    `${mask ? `    mask=open(${JSON.stringify(mask)}, "rb"),\n` : ""})\nwith open("edited.${format}", "wb") as file:\n    file.write(base64.b64decode(result.data[0].b64_json))\n`;
  const node =
    `import { createReadStream, writeFileSync } from "node:fs";\nimport OpenAI from "openai";\n\n` +
    `const client = new OpenAI({ baseURL: "${origin}/v1", apiKey: process.env.GATEWAY_API_KEY });\n\n` +
    `const result = await client.images.edit({\n${Object.entries(fields)
      .map(([name, value]) => `  ${name}: ${JSON.stringify(value)},`)
      .join("\n")}\n` +
    `  image: [${images.map((file) => `createReadStream(${JSON.stringify(file)})`).join(", ")}],\n${mask ? `  mask: createReadStream(${JSON.stringify(mask)}),\n` : ""}});\n` +
    `writeFileSync("edited.${format}", Buffer.from(result.data[0].b64_json, "base64"));\n`;
  return { curl, python, node };
}

/** Speech, then the transcription of the file it wrote: `speech` is the JSON body of /v1/audio/speech. */
export function buildAudioSnippets(origin: string, speech: Record<string, unknown>, transcriptionModel: string): Snippets {
  const format = typeof speech.response_format === "string" ? speech.response_format : "mp3";
  const file = `speech.${format}`;
  const curl =
    `curl -sS ${origin}/v1/audio/speech \\\n  -H "Authorization: Bearer $GATEWAY_API_KEY" \\\n  -H "Content-Type: application/json" \\\n` +
    `  -d ${shellQuote(JSON.stringify(speech, null, 2))} \\\n  --output ${file}\n\n` +
    `curl -sS ${origin}/v1/audio/transcriptions \\\n  -H "Authorization: Bearer $GATEWAY_API_KEY" \\\n` +
    `  -F ${shellQuote(`model=${transcriptionModel}`)} \\\n  -F ${shellQuote(`file=@${file}`)}`;
  const python =
    `import os\nfrom openai import OpenAI\n\nclient = OpenAI(base_url="${origin}/v1", api_key=os.environ["GATEWAY_API_KEY"])\n\n` +
    `with client.audio.speech.with_streaming_response.create(\n${pythonKwargs(speech)}\n) as speech:\n    speech.stream_to_file(${JSON.stringify(file)})\n\n` +
    `with open(${JSON.stringify(file)}, "rb") as audio:\n    transcript = client.audio.transcriptions.create(model=${JSON.stringify(transcriptionModel)}, file=audio)\nprint(transcript.text)\n`;
  const node =
    `import { createReadStream, writeFileSync } from "node:fs";\nimport OpenAI from "openai";\n\n` +
    `const client = new OpenAI({ baseURL: "${origin}/v1", apiKey: process.env.GATEWAY_API_KEY });\n\n` +
    `const speech = await client.audio.speech.create(${nodeObject(speech)});\nwriteFileSync(${JSON.stringify(file)}, Buffer.from(await speech.arrayBuffer()));\n\n` +
    `const transcript = await client.audio.transcriptions.create({ model: ${JSON.stringify(transcriptionModel)}, file: createReadStream(${JSON.stringify(file)}) });\nconsole.log(transcript.text);\n`;
  return { curl, python, node };
}
