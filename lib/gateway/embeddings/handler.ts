// POST /v1/embeddings (docs/api.md §4): OpenAI's shape. The body is checked (lib/gateway/embeddings/request.ts), the
// money path is every embeddings request's (lib/gateway/embeddings/core.ts: the model's checks, the exact count
// reserved, the relay with failover, the settlement), and the answer is OpenAI's, the vectors in the encoding the
// client asked for.
import { float32ToBase64 } from "@/lib/providers/embeddings-types";
import { gatewayRoute } from "@/lib/gateway/pipeline";
import { answerOf, embed, readEmbeddingsBody } from "./core";
import { countInputs, embeddingsBody, openaiInputNames, parseEmbeddingsRequest } from "./request";

export const embeddings = gatewayRoute(
  { endpoint: "/v1/embeddings", dialect: "openai", scheme: "bearer", operation: "embeddings" },
  async (context) => {
    const read = await readEmbeddingsBody(context, embeddingsBody, "/v1/embeddings");
    const request = parseEmbeddingsRequest(read.body);
    const names = { ...openaiInputNames(request.input), endpoint: "/v1/embeddings", dimensions: "dimensions" };
    const { model, encodingFormat: format } = request;
    const { vectors, promptTokens } = await embed(context, {
      model,
      input: request.input,
      dimensions: request.dimensions,
      user: request.user,
      inputCounts: read.inputCounts ?? countInputs(request.input, names),
      inputTokens: read.inputTokens,
      bodyBytes: read.bytes,
      names,
      detail: { encodingFormat: format },
    });
    // OpenAI's answer, `{object: "list", data: [{object, index, embedding}], model, usage}`, written around its items.
    const tail = `],"model":${JSON.stringify(model)},"usage":{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens}}}`;
    return answerOf(
      vectors,
      '{"object":"list","data":[',
      (vector, index) => {
        const embedding = format === "base64" ? JSON.stringify(float32ToBase64(vector)) : JSON.stringify(Array.from(vector));
        return `${index ? "," : ""}{"object":"embedding","index":${index},"embedding":${embedding}}`;
      },
      tail,
    );
  },
);
