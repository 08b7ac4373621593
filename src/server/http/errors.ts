/**
 * Errors that become HTTP responses: the HTTP layer's own (`HttpError`, with its status) and the
 * domain's refusals (`domain/errors.ts`), whose kind gives the status here. The status never
 * comes from the text; the body is the plain-text reason, as the reference writes it.
 *
 * @module
 */

import { GoJsonError } from "../../go/json.js";
import { NO_LEADER } from "../control/leader.js";
import { denied, invalid, missing, Refusal, type RefusalKind } from "../base/errors.js";
import { DatabaseUnavailableError } from "../state/postgres/database.js";

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

/** The status of each kind of refusal by the domain: the one place that maps them. */
export const REFUSAL_STATUS: Readonly<Record<RefusalKind, number>> = { invalid: 400, denied: 403, not_found: 404, conflict: 409, unreachable: 500, busy: 429, full: 503 };

/**
 * The reference's error (raft's `ErrLeadershipLost`) for a write whose commit was interrupted by
 * the loss of the leadership: it may have been applied, or not.
 */
export const LEADERSHIP_LOST = "leadership lost while committing log";

/** The status and body of an error that becomes a response, or undefined for any other error. */
export function responseOf(error: unknown): { readonly status: number; readonly message: string } | undefined {
  if (error instanceof HttpError) return { status: error.status, message: error.message };
  if (error instanceof Refusal) return { status: REFUSAL_STATUS[error.kind], message: error.message };
  // A body Go's JSON decoder refuses: the reference's 400, with its text.
  if (error instanceof GoJsonError) return { status: REFUSAL_STATUS.invalid, message: error.message };
  // The shared database away: the cluster has no leader, as the reference's servers without one answer.
  if (error instanceof DatabaseUnavailableError) return { status: REFUSAL_STATUS.unreachable, message: error.outcomeUnknown ? LEADERSHIP_LOST : NO_LEADER };
  return undefined;
}

/** 400: the request itself is wrong; changing a parameter may make it succeed. */
export const badRequest: (message: string) => Refusal = invalid;

/** 403, always with the reference's body `Permission denied`. */
export const permissionDenied: () => Refusal = denied;

/** 404 with a reason (unknown paths answer with an empty body instead). */
export const notFound: (message: string) => Refusal = missing;

/** 405 `Invalid method`, the reference's body for a method a path does not answer. */
export function invalidMethod(): HttpError {
  return new HttpError(405, "Invalid method");
}
