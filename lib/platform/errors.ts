// One error type, one code -> status table, one renderer per dialect (docs/decisions/0005-errors-in-the-endpoint-dialect.md).
// Internal details are logged by the caller, never put in a body: only GatewayError messages reach clients.
import { textResponse } from "./http/direct-body";

/** `google`: Google's `{error: {code, message, status}}`, for Gemini's own API (the /v1beta endpoints, docs/api.md). */
export type Dialect = "openai" | "anthropic" | "google" | "plain";

const STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  content_policy_violation: 400,
  file_too_large: 413,
  body_too_large: 413,
  missing_api_key: 401,
  invalid_api_key: 401,
  wrong_auth_scheme: 401,
  expired_api_key: 401,
  disabled_api_key: 401,
  unauthenticated: 401,
  model_not_allowed: 403,
  quota_exhausted: 403,
  insufficient_balance: 403,
  budget_exceeded: 403,
  ip_not_allowed: 403,
  forbidden: 403,
  not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  conflict: 409,
  rate_limited: 429,
  locked: 429,
  upstream_error: 502,
  no_channel: 503,
  upstream_timeout: 504,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof STATUS;

/** OpenAI error `type` per code: what its SDK and clients switch on. */
const OPENAI_TYPE: Partial<Record<ErrorCode, string>> = {
  missing_api_key: "invalid_request_error",
  invalid_api_key: "invalid_request_error",
  wrong_auth_scheme: "invalid_request_error",
  expired_api_key: "invalid_request_error",
  disabled_api_key: "invalid_request_error",
  quota_exhausted: "insufficient_quota",
  insufficient_balance: "insufficient_quota",
  rate_limited: "rate_limit_error",
  upstream_error: "api_error",
  upstream_timeout: "api_error",
  no_channel: "api_error",
  internal_error: "api_error",
  model_not_allowed: "permission_error",
  forbidden: "permission_error",
  ip_not_allowed: "permission_error",
  budget_exceeded: "budget_exceeded",
  content_policy_violation: "invalid_request_error",
};

/** Anthropic error `type` for the gateway's own refusals that have a name of their own (else by status, below). */
const ANTHROPIC_TYPE: Partial<Record<ErrorCode, string>> = { budget_exceeded: "budget_exceeded" };

/** Google's ErrorInfo `reason` for the gateway's own refusals that have a name of their own. */
const GOOGLE_REASON: Partial<Record<ErrorCode, string>> = { budget_exceeded: "BUDGET_EXCEEDED", ip_not_allowed: "IP_NOT_ALLOWED" };

/** Anthropic error `type` by HTTP status (https://docs.anthropic.com/en/api/errors). */
function anthropicType(status: number): string {
  if (status === 400 || status === 405 || status === 409) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 503 || status === 529) return "overloaded_error";
  return "api_error";
}

/** Google's canonical status names (https://cloud.google.com/apis/design/errors#handling_errors). */
const GOOGLE_STATUSES = new Set([
  "INVALID_ARGUMENT",
  "FAILED_PRECONDITION",
  "OUT_OF_RANGE",
  "UNAUTHENTICATED",
  "PERMISSION_DENIED",
  "NOT_FOUND",
  "ABORTED",
  "ALREADY_EXISTS",
  "RESOURCE_EXHAUSTED",
  "CANCELLED",
  "DATA_LOSS",
  "UNKNOWN",
  "INTERNAL",
  "UNIMPLEMENTED",
  "UNAVAILABLE",
  "DEADLINE_EXCEEDED",
]);

const GOOGLE_BY_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Google's status name for an error whose HTTP status is kept: an upstream's own Google name when it sent one, used-up
 *  money as RESOURCE_EXHAUSTED (still a 403), else the name Google pairs with the status. */
function googleStatus(error: GatewayError): string {
  if (error.vendor.code && GOOGLE_STATUSES.has(error.vendor.code)) return error.vendor.code;
  if (error.code === "quota_exhausted" || error.code === "insufficient_balance" || error.code === "budget_exceeded")
    return "RESOURCE_EXHAUSTED";
  return GOOGLE_BY_STATUS[error.status] ?? (error.status < 500 ? "INVALID_ARGUMENT" : "INTERNAL");
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  /** An upstream's own error type and code for a request it refused, shown instead of the gateway's. */
  readonly vendor: { type?: string; code?: string };

  constructor(
    code: ErrorCode,
    message: string,
    options: { param?: string | null; headers?: Record<string, string>; status?: number; vendor?: { type?: string; code?: string } } = {},
  ) {
    super(message);
    this.name = "GatewayError";
    this.code = code;
    this.status = options.status ?? STATUS[code];
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.vendor = options.vendor ?? {};
  }
}

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

export function errorBody(error: GatewayError, dialect: Dialect): unknown {
  if (dialect === "anthropic")
    return {
      type: "error",
      error: { type: error.vendor.type ?? ANTHROPIC_TYPE[error.code] ?? anthropicType(error.status), message: error.message },
    };
  if (dialect === "google") {
    const reason = GOOGLE_REASON[error.code];
    // Google names a refusal's cause in an ErrorInfo detail (https://cloud.google.com/apis/design/errors#error_info).
    const details = reason ? { details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "gateway" }] } : {};
    return { error: { code: error.status, message: error.message, status: googleStatus(error), ...details } };
  }
  // "plain" (the account, operator and portal APIs) answers in the same shape as /v1: one error shape everywhere but
  // /v1/messages, so a client needs one parser.
  return {
    error: {
      message: error.message,
      type: error.vendor.type ?? OPENAI_TYPE[error.code] ?? "invalid_request_error",
      code: error.vendor.code ?? error.code,
      param: error.param,
    },
  };
}

/** Any thrown value as a GatewayError: unknown errors become a generic 500 (the caller logs the original). */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError("internal_error", "The gateway hit an internal error. It has been logged; please try again.");
}

export function errorResponse(error: unknown, dialect: Dialect, headers: Record<string, string> = {}): Response {
  const gatewayError = asGatewayError(error);
  return textResponse(JSON.stringify(errorBody(gatewayError, dialect)), gatewayError.status, {
    "content-type": "application/json",
    ...gatewayError.headers,
    ...headers,
  });
}
