/** The outgoing call got no answer within its `timeoutMs` (and was aborted). */
export class PostTimeoutError extends Error {
  override readonly name = "PostTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** Where and how the runner calls a service over HTTP (a checker, the executing system), and what it tells of each call. */
export interface OutgoingCallOptions<Outcome extends string> {
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  readonly token?: string | undefined;
  /** A call not answered by then is aborted (what that means is the caller's: inconclusive, an outage). */
  readonly timeoutMs: number;
  /** Told how every call ended. */
  readonly observe?: (outcome: Outcome) => void;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
}

export interface PostJsonOptions {
  /** Sent as `Authorization: Bearer <token>` when set. */
  readonly token?: string | undefined;
  /** More request headers (`idempotency-key`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** An answer (head and body) later than this aborts the call with {@link PostTimeoutError}. */
  readonly timeoutMs: number;
  /** The caller's own abort (a stopping runner): its reason is thrown as is, never a timeout. */
  readonly signal?: AbortSignal | undefined;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch | undefined;
}

/**
 * One outgoing JSON call of the runner to a service it hosts for (a checker, the executing
 * system): `POST url` with `body` as JSON, redirects refused. Returns the status and the text of
 * the answer whatever the status; throws {@link PostTimeoutError} after `timeoutMs`, and the fetch
 * error for a refused connection, a reset or the caller's abort.
 */
export async function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<{ readonly status: number; readonly text: string }> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal;
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: "error",
    });
    return { status: response.status, text: await response.text() };
  } catch (e) {
    if (timeout.aborted && !signal?.aborted) throw new PostTimeoutError(options.timeoutMs);
    throw e;
  }
}
