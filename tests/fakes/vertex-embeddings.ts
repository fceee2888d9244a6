// Text embeddings on Vertex AI: the checks and answers of `publishers/google/models/{m}:predict` for the fake in
// tests/fakes/vertex.ts, in the shape of Google's Text embeddings API (the one @google/genai's Vertex mode reads,
// tests/fakes/vertex.test.ts): a body of `instances: [{content, task_type?, title?}]` and `parameters:
// {autoTruncate?, outputDimensionality?}`; an answer of `predictions: [{embeddings: {values, statistics: {truncated,
// token_count}}}]` and `metadata: {billableCharacterCount}`. gemini-embedding-001 takes one instance per request, the
// text-embedding models up to 250; a dimensionality above the model's size is refused. As Google's, a vector shorter
// than the model's full size is not scaled to unit length; token counts are the fake's own (non-round).

export const VERTEX_EMBEDDING_MODELS: Record<string, { dimensions: number; maxInstances: number }> = {
  "gemini-embedding-001": { dimensions: 3072, maxInstances: 1 },
  "text-embedding-005": { dimensions: 768, maxInstances: 250 },
  "text-multilingual-embedding-002": { dimensions: 768, maxInstances: 250 },
};

/** The fake's token count of a text: its UTF-8 bytes / 4, rounded up, plus one. */
export function vertexTokenCount(text: string): number {
  return Math.ceil(Buffer.byteLength(text) / 4) + 1;
}

/** Values that depend on the text, of no particular length. */
export function vertexEmbeddingValues(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let index = 0; index < dimensions; index++) {
    const code = text.charCodeAt(index % Math.max(text.length, 1)) || 7;
    values.push(Number((Math.cos(code * (index + 2)) / 5).toFixed(7)));
  }
  return values;
}

/** What is wrong with a predict body for `model`, in Google's words, or null. */
export function checkEmbeddingRequest(model: string, body: any): string | null {
  const spec = VERTEX_EMBEDDING_MODELS[model]!;
  const instances = body?.instances;
  if (!Array.isArray(instances) || instances.length === 0) return "Invalid request: instances is empty.";
  if (instances.length > spec.maxInstances)
    return spec.maxInstances === 1
      ? `Unable to submit request because ${model} supports only one instance per request; got ${instances.length}.`
      : `Unable to submit request because the number of instances (${instances.length}) exceeds the limit of ${spec.maxInstances}.`;
  for (const [index, instance] of instances.entries()) {
    if (typeof instance?.content !== "string" || !instance.content) return `Invalid request: instances[${index}].content is empty.`;
  }
  const dimensions = body.parameters?.outputDimensionality;
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > spec.dimensions))
    return `Unable to submit request because outputDimensionality ${dimensions} is not supported by ${model}; it takes 1 to ${spec.dimensions}.`;
  return null;
}

export function embeddingAnswer(model: string, body: any) {
  const dimensions = body.parameters?.outputDimensionality ?? VERTEX_EMBEDDING_MODELS[model]!.dimensions;
  const instances = body.instances as { content: string }[];
  return {
    predictions: instances.map(({ content }) => ({
      embeddings: {
        statistics: { truncated: false, token_count: vertexTokenCount(content) },
        values: vertexEmbeddingValues(content, dimensions),
      },
    })),
    metadata: { billableCharacterCount: instances.reduce((sum, { content }) => sum + content.replace(/\s/g, "").length, 0) },
  };
}
