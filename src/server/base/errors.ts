/**
 * Why the agent's domain (registration, the scheduler, namespaces, ACLs, decoding) refuses
 * something, in its own terms: the input is invalid, the caller may not, the thing does not
 * exist, the request is for a region this agent cannot reach, the agent is busy, or its memory is full. The HTTP layer gives each kind
 * its status, in one place (`http/errors.ts`); the domain
 * never names a status.
 *
 * @module
 */

/** The kinds of refusal. */
export type RefusalKind = "invalid" | "denied" | "not_found" | "conflict" | "unreachable" | "busy" | "full";

/** A refusal by the domain, with the reason as the reference words it. */
export class Refusal extends Error {
  override readonly name = "Refusal";

  constructor(
    readonly kind: RefusalKind,
    message: string,
  ) {
    super(message);
  }
}

/** The input is wrong; changing it may make the request succeed. */
export function invalid(message: string): Refusal {
  return new Refusal("invalid", message);
}

/** The caller may not do this, with the reference's reason `Permission denied`. */
export function denied(): Refusal {
  return new Refusal("denied", "Permission denied");
}

/**
 * The agent serves as many of these at once as a documented limit allows, and that many are
 * being served: the same request may succeed once one of them ends.
 */
export function busy(message: string): Refusal {
  return new Refusal("busy", message);
}

/** The thing is in a state that refuses the change (a variable's lock held by another). */
export function conflict(message: string): Refusal {
  return new Refusal("conflict", message);
}

/** The thing asked for does not exist. */
export function missing(message: string): Refusal {
  return new Refusal("not_found", message);
}

/**
 * The agent serves its own region only: another has no servers to forward to (the reference
 * answers this with a 500).
 */
export function checkRegion(region: string, ownRegion: string): void {
  if (region !== ownRegion) throw new Refusal("unreachable", "No path to region");
}
