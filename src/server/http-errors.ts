/**
 * Errors that become HTTP responses. The status comes from the error's class and code, never
 * from its text; the body is the plain-text reason, as the reference writes it.
 *
 * @module
 */

/** A request the agent refuses or cannot serve: `status` and a plain-text `message` body. */
export class HttpError extends Error {
  override readonly name = "HttpError";

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** 400: the request itself is wrong; changing a parameter may make it succeed. */
export function badRequest(message: string): HttpError {
  return new HttpError(400, message);
}

/** 403, always with the reference's body `Permission denied`. */
export function permissionDenied(): HttpError {
  return new HttpError(403, "Permission denied");
}

/** 404 with a reason (unknown paths answer with an empty body instead). */
export function notFound(message: string): HttpError {
  return new HttpError(404, message);
}

/** 405 `Invalid method`, the reference's body for a method a path does not answer. */
export function invalidMethod(): HttpError {
  return new HttpError(405, "Invalid method");
}
