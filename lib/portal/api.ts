"use client";
// The portal's calls to its own JSON APIs (/api/user/*, /api/admin/*): same-origin fetch with the session cookie,
// errors as ApiError carrying the server's {error:{code,message,param}}, and a small hook for GETs with loading,
// error and reload (`useApi`). Forms map `param` to the field it names (`formErrors` below; lib/portal/form.ts
// builds a form on it).
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useSyncExternalStore } from "react";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | null;

  constructor(status: number, code: string, message: string, param: string | null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** The error of any failed answer, in the plain dialect ({error:{code,message,param}}) or OpenAI/Anthropic's. */
export async function errorFrom(response: Response): Promise<ApiError> {
  let body: unknown = null;
  const text = await response.text().catch(() => "");
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  const error = (body as { error?: { code?: unknown; type?: unknown; message?: unknown; param?: unknown } } | null)?.error;
  const message =
    typeof error?.message === "string" && error.message
      ? error.message
      : response.status === 502 || response.status === 503 || response.status === 504
        ? "The server is not reachable right now. Try again in a moment."
        : `The request failed (HTTP ${response.status}).`;
  const code = typeof error?.code === "string" ? error.code : typeof error?.type === "string" ? error.type : `http_${response.status}`;
  const param = typeof error?.param === "string" && error.param ? error.param : null;
  return new ApiError(response.status, code, message, param);
}

export async function api<T = unknown>(path: string, options: { method?: Method; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      headers:
        options.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: "same-origin",
      cache: "no-store",
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(0, "network", "Could not reach the server. Check your connection and try again.", null);
  }
  if (!response.ok) throw await errorFrom(response);
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** Where to send someone whose session has ended, coming back here afterwards; `ended=1` makes the sign-in page say why. */
export function signInUrl(): string {
  const back = typeof window === "undefined" ? "/dashboard" : window.location.pathname + window.location.search;
  return `/sign-in?ended=1&callbackUrl=${encodeURIComponent(back)}`;
}

export type Loaded<T> = {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => Promise<void>;
};

/**
 * GETs `path` (null: nothing yet) and again whenever it changes; a 401 sends the user to sign in. Built on TanStack
 * Query (components/providers.tsx holds the client): two components reading one path share one request and one
 * cached answer, `reload` refreshes every reader of it, and the previous answer stays shown while a new path loads.
 */
export function useApi<T>(path: string | null): Loaded<T> {
  const query = useQuery<T, ApiError>({
    queryKey: ["api", path],
    enabled: path !== null,
    queryFn: async ({ signal }) => {
      try {
        return await api<T>(path as string, { signal });
      } catch (caught) {
        throw caught instanceof ApiError ? caught : new ApiError(0, "unknown", String(caught), null);
      }
    },
    placeholderData: keepPreviousData,
  });
  const signedOut = query.error?.status === 401;
  useEffect(() => {
    if (signedOut) window.location.assign(signInUrl());
  }, [signedOut]);
  const { refetch } = query;
  const reload = useCallback(async () => {
    await refetch();
  }, [refetch]);
  return {
    data: query.data ?? null,
    error: signedOut ? null : (query.error ?? null),
    loading: query.isFetching,
    reload,
  };
}

/** Refreshes every `useApi` reader whose path starts with one of `prefixes` (after a change they all show). */
export function useRefresh(): (...prefixes: string[]) => Promise<void> {
  const client = useQueryClient();
  return useCallback(
    async (...prefixes: string[]) => {
      await client.invalidateQueries({
        predicate: (query) => {
          const path = query.queryKey[1];
          return typeof path === "string" && prefixes.some((prefix) => path.startsWith(prefix));
        },
      });
    },
    [client],
  );
}

/** "Invalid 'email': must be an email address" → "Must be an email address" (the field's label says which). */
export function fieldMessage(message: string): string {
  const stripped = message.replace(/^Invalid '[^']*':\s*/, "");
  return stripped.charAt(0).toUpperCase() + stripped.slice(1);
}

export type FormErrors = { fields: Record<string, string>; form: string | null };

export const NO_ERRORS: FormErrors = { fields: {}, form: null };

/**
 * Puts a server error next to the field its `param` names, or above the form when the form has no such field. The
 * whole param is tried first ("settings.region", for a form with an input of its own for it), then its first
 * segment ("models.0" → "models"); `aliases` maps either to a differently named form field.
 */
export function formErrors(error: unknown, fields: readonly string[], aliases: Record<string, string> = {}): FormErrors {
  if (!(error instanceof ApiError)) return { fields: {}, form: error instanceof Error ? error.message : String(error) };
  const candidates = error.param ? [error.param, error.param.split(".")[0]!] : [];
  for (const candidate of candidates) {
    const field = aliases[candidate] ?? candidate;
    if (fields.includes(field)) return { fields: { [field]: fieldMessage(error.message) }, form: null };
  }
  return { fields: {}, form: error.message };
}

const noSubscription = () => () => undefined;

/** This site's origin for snippets and links: "" while rendering on the server, so hydration matches. */
export function useOrigin(): string {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
}

/** Every path whose answer holds a money figure: the balance, the keys' quota, budget and spending, the playground's key. */
export const MONEY_PATHS = ["/api/user/self", "/api/user/keys", "/api/user/playground", "/api/user/usage"] as const;

/**
 * Refreshes every money figure on screen at once (MONEY_PATHS), so the balance, a key's remaining quota and budget,
 * and the playground key's "left" never disagree after a request spends.
 */
export function useMoneyRefresh(): () => Promise<void> {
  const refresh = useRefresh();
  return useCallback(() => refresh(...MONEY_PATHS), [refresh]);
}
