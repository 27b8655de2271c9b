/** A request asked with parameters outside their domain (bad range, unknown type): the caller's fault, never retried. */
export class RequestInputError extends Error {
  override readonly name = "RequestInputError";
}

export const isRequestInputError = (e: unknown): e is RequestInputError => e instanceof RequestInputError;
