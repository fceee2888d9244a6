// Azure OpenAI's answer bodies and errors, for the fake in tests/fakes/azure.ts. Shapes follow Microsoft's pages:
//   https://learn.microsoft.com/en-us/azure/ai-services/openai/reference (chat completions, embeddings, images)
//   https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter (prompt_filter_results,
//     content_filter_results, the 400 with code content_filter, streaming's first chunk of prompt results)
//   https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/quota (429 and retry-after)
// Usage numbers are deliberately non-round so that a ledger check means something.

export type AzureUsage = { prompt_tokens: number; completion_tokens: number; cached_tokens?: number; reasoning_tokens?: number };

export const DEFAULT_AZURE_USAGE: AzureUsage = { prompt_tokens: 1237, completion_tokens: 389, cached_tokens: 256, reasoning_tokens: 0 };

/** What the next chat call answers. Every field is optional; the default is a short text answer. */
export type AzureAnswer = {
  /** Text pieces: one stream chunk each, joined in a plain answer. */
  text?: string[];
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** null: no usage at all, even when the stream asked for it. */
  usage?: AzureUsage | null;
  /** The prompt trips the filter: 400 with code content_filter, nothing generated. */
  filterPrompt?: boolean;
  /** The completion trips the filter: finish_reason content_filter, the category marked filtered. */
  filterCompletion?: boolean;
  /** In a stream, send this many data events then drop the connection. */
  cutAfterChunks?: number;
  /** Answer with this error instead (see azureError, throttled). */
  error?: { status: number; body: unknown; headers?: Record<string, string> };
};

const SAFE = { filtered: false, severity: "safe" };

export function promptFilterResults(violence = SAFE) {
  return [
    {
      prompt_index: 0,
      content_filter_results: {
        hate: SAFE,
        jailbreak: { filtered: false, detected: false },
        self_harm: SAFE,
        sexual: SAFE,
        violence,
      },
    },
  ];
}

export function choiceFilterResults(filtered = false) {
  return {
    hate: SAFE,
    protected_material_code: { filtered: false, detected: false },
    protected_material_text: { filtered: false, detected: false },
    self_harm: SAFE,
    sexual: SAFE,
    violence: filtered ? { filtered: true, severity: "high" } : SAFE,
  };
}

export function azureError(code: string, message: string) {
  return { error: { code, message } };
}

export const ACCESS_DENIED = azureError(
  "401",
  "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
);
export const RESOURCE_NOT_FOUND = azureError("404", "Resource not found");
export const API_VERSION_UNSUPPORTED = azureError("BadRequest", "API version not supported");
export const DEPLOYMENT_NOT_FOUND = azureError(
  "DeploymentNotFound",
  "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.",
);

export function promptFiltered() {
  return {
    error: {
      message:
        "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
      type: null,
      param: "prompt",
      code: "content_filter",
      status: 400,
      innererror: {
        code: "ResponsibleAIPolicyViolation",
        content_filter_result: promptFilterResults({ filtered: true, severity: "medium" })[0].content_filter_results,
      },
    },
  };
}

/** The 429 an exhausted token-per-minute quota answers, with its retry-after. */
export function throttled(apiVersion = "2024-10-21"): AzureAnswer["error"] {
  return {
    status: 429,
    headers: { "retry-after": "7", "retry-after-ms": "7000" },
    body: azureError(
      "429",
      `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version ${apiVersion} have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 7 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.`,
    ),
  };
}

function usageBlock(usage: AzureUsage) {
  return {
    completion_tokens: usage.completion_tokens,
    completion_tokens_details: {
      accepted_prediction_tokens: 0,
      audio_tokens: 0,
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      rejected_prediction_tokens: 0,
    },
    prompt_tokens: usage.prompt_tokens,
    prompt_tokens_details: { audio_tokens: 0, cached_tokens: usage.cached_tokens ?? 0 },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

function usageOf(answer: AzureAnswer): AzureUsage | null {
  return answer.usage === undefined ? DEFAULT_AZURE_USAGE : answer.usage;
}

function finishReason(answer: AzureAnswer): string {
  return answer.filterCompletion ? "content_filter" : answer.toolCalls ? "tool_calls" : "stop";
}

const DEFAULT_TEXT = ["Azure says ", "hello."];

export function chatCompletion(answer: AzureAnswer, model: string, id: string) {
  const usage = usageOf(answer);
  const message = answer.toolCalls
    ? {
        role: "assistant",
        content: null,
        refusal: null,
        tool_calls: answer.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      }
    : { role: "assistant", content: answer.filterCompletion ? null : (answer.text ?? DEFAULT_TEXT).join(""), refusal: null };
  return {
    choices: [
      {
        content_filter_results: choiceFilterResults(answer.filterCompletion),
        finish_reason: finishReason(answer),
        index: 0,
        logprobs: null,
        message,
      },
    ],
    created: Math.floor(Date.now() / 1000),
    id,
    model,
    object: "chat.completion",
    prompt_filter_results: promptFilterResults(),
    system_fingerprint: "fp_ee1d74bde0",
    ...(usage ? { usage: usageBlock(usage) } : {}),
  };
}

/**
 * The data events of a streamed chat completion as Azure sends them: first the prompt's filter results with no
 * choices, then the deltas (each with the choice's filter results), the finish reason, the usage chunk when
 * `stream_options.include_usage` asked for it, and `[DONE]`.
 */
export function chatChunks(answer: AzureAnswer, model: string, id: string, includeUsage: boolean): unknown[] {
  const created = Math.floor(Date.now() / 1000);
  const base = { created, id, model, object: "chat.completion.chunk", system_fingerprint: "fp_ee1d74bde0" };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ content_filter_results: finish ? {} : choiceFilterResults(), delta, finish_reason: finish, index: 0, logprobs: null }],
  });
  const events: unknown[] = [{ choices: [], created: 0, id: "", model: "", object: "", prompt_filter_results: promptFilterResults() }];
  if (answer.toolCalls) {
    events.push(chunk({ role: "assistant", content: null, refusal: null }));
    for (const [index, call] of answer.toolCalls.entries()) {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      events.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }));
    }
  } else {
    events.push(chunk({ role: "assistant", content: "", refusal: null }));
    if (!answer.filterCompletion) for (const piece of answer.text ?? DEFAULT_TEXT) events.push(chunk({ content: piece }));
  }
  const last = chunk({}, finishReason(answer));
  if (answer.filterCompletion) (last.choices[0] as any).content_filter_results = choiceFilterResults(true);
  events.push(last);
  const usage = usageOf(answer);
  if (includeUsage && usage) events.push({ ...base, choices: [], usage: usageBlock(usage) });
  events.push("[DONE]");
  return events;
}

/** An embedding whose values depend on the text, so two inputs never share one. */
export function embeddingOf(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let index = 0; index < dimensions; index++) {
    const code = text.charCodeAt(index % Math.max(text.length, 1)) || 7;
    values.push(Math.fround(Math.cos(code * (index + 3)) / 4));
  }
  return values;
}

/** `encoding_format: "base64"`: the float32 values, little-endian, in base64. */
export function embeddingBase64(values: number[]): string {
  const buffer = Buffer.alloc(values.length * 4);
  for (const [index, value] of values.entries()) buffer.writeFloatLE(value, index * 4);
  return buffer.toString("base64");
}

/** A 1×1 PNG: enough for an image answer a client decodes. */
export const TINY_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

export function imageAnswer(count: number, usage: { input_tokens: number; output_tokens: number }) {
  return {
    created: Math.floor(Date.now() / 1000),
    data: Array.from({ length: count }, () => ({
      b64_json: TINY_PNG_BASE64,
      content_filter_results: choiceFilterResults(),
      prompt_filter_results: promptFilterResults()[0].content_filter_results,
    })),
    usage: {
      input_tokens: usage.input_tokens,
      input_tokens_details: { image_tokens: 0, text_tokens: usage.input_tokens },
      output_tokens: usage.output_tokens,
      total_tokens: usage.input_tokens + usage.output_tokens,
    },
  };
}
