/** An answer of 400 and above, with the API's error body (`{code, message, status}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON request: the body is sent as JSON; who the caller is (a session, a key) is the app's to add. */
export interface JsonRequest {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  credentials: RequestCredentials;
  cache?: RequestCache;
}

/** The error of an answer of 400 and above; a body that is not the API's error still gives one. */
export async function errorOf(response: Response): Promise<ApiError> {
  const error = (await response.json().catch(() => null)) as { code?: string; message?: string } | null;
  return new ApiError(response.status, error?.code ?? 'unknown', error?.message ?? response.statusText);
}

/**
 * One request to this origin, answered with its JSON body (undefined for a 204) and its headers; an answer of
 * 400 and above throws its {@link ApiError}. The console and the reference's key page both call through it.
 */
export async function fetchJson<T>(
  url: string,
  { method = 'GET', body, headers = {}, credentials, cache }: JsonRequest,
): Promise<{ body: T; headers: Headers }> {
  const sent: Record<string, string> = { ...headers };
  if (body !== undefined) sent['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers: sent,
    credentials,
    ...(cache === undefined ? {} : { cache }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return { body: undefined as T, headers: response.headers };
  const answer = (await response.json().catch(() => null)) as T;
  return { body: answer, headers: response.headers };
}
