/**
 * The table each ported file starts with: every test function of the reference's Go file, and
 * what became of it: ported, ported but failing for a known gap of the agent (`it.fails`, named
 * by its cause), or skipped with its reason. {@link runGoTests} registers the tests from the
 * table, so the table is the one place a test's fate is written: when the agent closes a gap,
 * the entry becomes {@link PORTED} and the test runs as a plain `it`.
 *
 * @module
 */
import { it } from "vitest";

/**
 * Why a ported test fails today: the places the agent does not yet behave as the reference.
 * Each test marked with one fails for that cause first (the report lists the actual errors).
 */
export const KNOWN_GAPS = {} as const;

/** A cause of {@link KNOWN_GAPS}. */
export type KnownGap = keyof typeof KNOWN_GAPS;

/** Why a Go test is not ported. */
export const SKIP_REASONS = {
  "client-side": "client-side only: it calls no endpoint",
  "not-served": "needs an endpoint the agent does not serve",
  "needs-cluster": "needs several servers joined into a cluster",
  "no-body": "the reference's test has no body (a TODO, or t.Skip)",
} as const;

/** A reason of {@link SKIP_REASONS}. */
export type SkipReason = keyof typeof SKIP_REASONS;

/** What became of one Go test. */
export type Entry =
  | { readonly kind: "ported" }
  | { readonly kind: "fails"; readonly cause: KnownGap; readonly note?: string }
  | { readonly kind: "skipped"; readonly reason: SkipReason; readonly detail: string };

/** Ported, and passing. */
export const PORTED = { kind: "ported" } as const;

/** Ported, and failing for `cause` until the agent closes that gap (`it.fails`). */
export function fails(cause: KnownGap, note?: string): { readonly kind: "fails"; readonly cause: KnownGap; readonly note?: string } {
  return note === undefined ? { kind: "fails", cause } : { kind: "fails", cause, note };
}

/** Not ported: it tests the Go client alone (`what` it calls). */
export function clientSide(what: string): { readonly kind: "skipped"; readonly reason: SkipReason; readonly detail: string } {
  return { kind: "skipped", reason: "client-side", detail: what };
}

/** Not ported: it needs these endpoints, which the agent does not serve. */
export function notServed(...endpoints: string[]): { readonly kind: "skipped"; readonly reason: SkipReason; readonly detail: string } {
  return { kind: "skipped", reason: "not-served", detail: endpoints.join(", ") };
}

/** Not ported, for another reason of {@link SKIP_REASONS}. */
export function skipped(reason: SkipReason, detail: string): { readonly kind: "skipped"; readonly reason: SkipReason; readonly detail: string } {
  return { kind: "skipped", reason, detail };
}

/** The tests a table says run: every entry that is not skipped. */
export type RunnableTests<T extends Readonly<Record<string, Entry>>> = {
  readonly [K in keyof T as T[K] extends { readonly kind: "skipped" } ? never : K]: () => Promise<void>;
};

/**
 * The environment variable that runs the tests of known gaps as plain tests, to see how each
 * fails today (`NOMAD_API_SHOW_GAPS=1 npx vitest run test/nomad-api/`).
 */
export const SHOW_GAPS_VARIABLE = "NOMAD_API_SHOW_GAPS";

/**
 * Registers the tests of a table, in its order: `it` for a ported one, `it.fails` for one that
 * fails for a known gap, `it.skip` (named with its reason) for one not ported. The type requires
 * a function for exactly the entries that run.
 */
export function runGoTests<T extends Readonly<Record<string, Entry>>>(table: T, tests: RunnableTests<T>, timeoutMs?: number): void {
  const functions = tests as unknown as Readonly<Record<string, () => Promise<void>>>;
  for (const [name, entry] of Object.entries(table)) {
    const test = functions[name];
    if (entry.kind === "skipped") {
      it.skip(`${name}: ${SKIP_REASONS[entry.reason]} (${entry.detail})`, () => {});
    } else if (test === undefined) {
      throw new Error(`${name} is in the table as ${entry.kind}, but has no test`);
    } else if (entry.kind === "fails" && process.env[SHOW_GAPS_VARIABLE] !== "1") {
      it.fails(`${name} (known gap: ${entry.cause})`, test, timeoutMs);
    } else {
      it(name, test, timeoutMs);
    }
  }
}
