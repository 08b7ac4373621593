/**
 * Variables and their locks, as the reference's `Variables` RPCs and state store do them
 * (`nomad/variables_endpoint.go`, `nomad/state/state_store_variables.go`,
 * `nomad/structs/variables.go`) and its leader's lock timers (`nomad/locks.go`):
 *
 * - `set` writes a variable; `cas` writes it when its `ModifyIndex` is the one given (0: when it
 *   does not exist); `delete` and `delete-cas` likewise remove it. A mismatch is a conflict whose
 *   answer is the variable as it is (a zero variable of the path when there is none).
 * - `lock-acquire` puts a lock on the variable (created when absent, its items replaced by the
 *   request's, as the reference's); while it is held, every other write without its ID is a
 *   conflict. `lock-release` takes it off, the items kept.
 * - The holder renews the lock before twice its TTL has passed (the reference's grace); after
 *   that the lock is lost, and it is taken off the variable once its `LockDelay` has passed too.
 *
 * The checks that need the caller's rights are the HTTP layer's; what is here needs the state.
 * Items are kept in the clear (the reference encrypts them with its keyring).
 *
 * @module
 */
import { newUuid } from "../base/ids.js";
import { formatErrors } from "../../go/multierror.js";
import { conflict, invalid, missing } from "../base/errors.js";
import type { Variable, VariableLock } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import type { StepQueue } from "./timers.js";
import type { SchedulerContext } from "./state.js";

/** The largest variable: its items' keys and values, in bytes (the reference's `maxVariableSize`, 64 KiB). */
export const MAX_VARIABLE_SIZE = 65_536;

/**
 * The most variables the agent holds, in all namespaces (its own bound on memory; the reference
 * bounds a namespace's by its quota's bytes): past it, a new variable is a 400.
 */
export const MAX_VARIABLES = 10_000;

/** The most items one variable holds (the agent's own bound, besides the size: an item may be a key alone). */
export const MAX_VARIABLE_ITEMS = 1_000;

/** A lock's shortest and longest TTL, and the defaults of its TTL and delay (the reference's, in nanoseconds). */
export const MIN_LOCK_TTL_NS = 10e9;
/** See {@link MIN_LOCK_TTL_NS}: 24 hours. */
export const MAX_LOCK_TTL_NS = 24 * 3600e9;
/** A lock's TTL when the request gives none: 15 s. */
export const DEFAULT_LOCK_TTL_NS = 15e9;
/** A lock's delay when the request gives none: 15 s. */
export const DEFAULT_LOCK_DELAY_NS = 15e9;
/**
 * The longest lock delay (the agent's own bound: the reference takes any; a day, as the longest TTL).
 */
export const MAX_LOCK_DELAY_NS = MAX_LOCK_TTL_NS;

/**
 * A variable's path: RFC 3986 unreserved characters and `/`, 1 to 128 of them (the reference's
 * `validVariablePath`, which keeps its state store's lookups cheap).
 */
const VALID_PATH = /^[a-zA-Z0-9\-_~/]{1,128}$/;

/** The operations of `Variables.Apply` (`structs.VarOp`). */
export type VarOp = "set" | "cas" | "delete" | "delete-cas" | "lock-acquire" | "lock-release";

/** A lock as a request gives it: the durations in nanoseconds, 0 when not given. */
export interface LockInput {
  readonly ID: string;
  readonly TTL: number;
  readonly LockDelay: number;
}

/** A variable as a write request gives it (`structs.VariableDecrypted`). */
export interface VariableInput {
  readonly Namespace: string;
  readonly Path: string;
  /** The items; null when the request has none. */
  readonly Items: Readonly<Record<string, string>> | null;
  readonly Lock: LockInput | null;
  /** The index a check-and-set compares with. */
  readonly ModifyIndex: number;
}

/** What a write did: written (the variable as written, or undefined when it removed or found nothing), or refused by a conflict. */
export type ApplyOutcome =
  | { readonly result: "ok"; readonly index: number; readonly written: Variable | undefined }
  | { readonly result: "conflict"; readonly index: number; readonly conflict: Variable };

/**
 * Checks a path as the reference's `ValidatePath`: the allowed characters and length, and under
 * the reserved `nomad/` only `nomad/jobs…`, `nomad/sentinel…` and `nomad/job-templates/<name>`.
 */
export function validatePath(path: string): void {
  if (path === "") throw invalid("variable requires path");
  if (!VALID_PATH.test(path)) throw invalid(`invalid path ${JSON.stringify(path)}`);
  const parts = path.split("/");
  if (parts[0] !== "nomad") return;
  if (parts.length === 1) {
    throw invalid(`"nomad" is a reserved top-level directory path, but you may write variables to "nomad/jobs", "nomad/job-templates", "nomad/sentinel", or below`);
  }
  if (parts[1] === "jobs" || parts[1] === "sentinel") return;
  if (parts[1] === "job-templates" && parts.length === 3) return;
  if (parts[1] === "job-templates") {
    throw invalid(`"nomad/job-templates" is a reserved directory path, but you may write variables at the level below it, for example, "nomad/job-templates/template-name"`);
  }
  throw invalid(`only paths at "nomad/jobs" or "nomad/job-templates" and below are valid paths under the top-level "nomad" directory`);
}

/** The size of a variable's items as the reference counts it: each key's and value's bytes. */
function itemsSize(items: Readonly<Record<string, string>> | null): number {
  let size = 0;
  for (const [key, value] of Object.entries(items ?? {})) size += Buffer.byteLength(key) + Buffer.byteLength(value);
  return size;
}

/** A lock with the reference's defaults (`VariableLock.Canonicalize`): an ID drawn when none is given, the default TTL and delay. */
function canonicalLock(lock: LockInput | null): VariableLock {
  return {
    ID: lock === null || lock.ID === "" ? newUuid() : lock.ID,
    TTL: lock === null || lock.TTL === 0 ? DEFAULT_LOCK_TTL_NS : lock.TTL,
    LockDelay: lock === null || lock.LockDelay === 0 ? DEFAULT_LOCK_DELAY_NS : lock.LockDelay,
  };
}

/** `VariableLock.Validate`, with the agent's bound on the delay. */
function validateLock(lock: VariableLock): void {
  const problems: string[] = [];
  if (lock.LockDelay < 0 || lock.TTL < 0) problems.push("Lock delay and TTL must be positive");
  if (lock.TTL > MAX_LOCK_TTL_NS || lock.TTL < MIN_LOCK_TTL_NS) problems.push("TTL must be between 10 seconds and 24 hours");
  if (lock.LockDelay > MAX_LOCK_DELAY_NS) problems.push("Lock delay must be at most 24 hours");
  if (problems.length > 0) throw invalid(formatErrors(problems));
}

/** The items' checks of a write (`VariableDecrypted.Validate` and the agent's count bound). */
function validateItems(items: Readonly<Record<string, string>> | null, required: boolean): void {
  if (required && Object.keys(items ?? {}).length === 0) throw invalid("empty variables are invalid");
  if (itemsSize(items) > MAX_VARIABLE_SIZE) throw invalid("variables are limited to 64KiB in total size");
  if (Object.keys(items ?? {}).length > MAX_VARIABLE_ITEMS) throw invalid(`variables are limited to ${MAX_VARIABLE_ITEMS} items`);
}

/**
 * A request checked and made canonical as `canonicalizeAndValidate` does for its operation; the
 * lock of a lock acquisition with its defaults.
 */
export function checkRequest(op: VarOp, input: VariableInput): VariableInput {
  if (input.Namespace === "*") throw invalid(`can not target wildcard ("*")namespace`);
  switch (op) {
    case "lock-acquire": {
      const lock = canonicalLock(input.Lock);
      validateItems(input.Items, false);
      validatePath(input.Path);
      validateLock(lock);
      return { ...input, Lock: lock };
    }
    case "set":
    case "cas":
      // A lock given with a write must be the holder's ID alone: a TTL or delay would make a lock no timer keeps.
      if (input.Lock !== null && (input.Lock.TTL !== 0 || input.Lock.LockDelay !== 0)) throw invalid("variable should not contain lock definition");
      validateItems(input.Items, true);
      validatePath(input.Path);
      return input;
    case "delete":
    case "delete-cas":
      if (input.Path === "") throw invalid("delete requires a Path");
      return input;
    case "lock-release":
      if (input.Lock === null || input.Lock.ID === "") throw invalid("missing lock information");
      if (input.Items !== null) throw invalid("lock release operation doesn't take variable items");
      validatePath(input.Path);
      return input;
  }
}

/** The zero variable of a path: what a conflict shows when there is nothing to show (no variable, or a lock's holder's). */
function zeroVariable(namespace: string, path: string): Variable {
  return { Namespace: namespace, Path: path, Lock: null, Items: {}, CreateIndex: 0, CreateTime: 0n, ModifyIndex: 0, ModifyTime: 0n };
}

/** Whether `lock` refuses a request: it is held, by another ID than the request's (`isLocked`). */
function lockedAgainst(lock: VariableLock | null, input: VariableInput): boolean {
  return lock !== null && input.Lock?.ID !== lock.ID;
}

/**
 * Writes `input` (`varSetTxn`): a conflict when another holds the variable's lock; a new variable
 * is refused past {@link MAX_VARIABLES}. A write by the lock's holder keeps the lock
 * as it is; a lock given with a write to a variable that holds none is not kept (the reference
 * would keep a lock no timer ends).
 */
function setVariable(state: Transaction<"variables">, input: VariableInput, nowNs: bigint, lock: VariableLock | null | "keep"): ApplyOutcome {
  const key = namespacedKey(input.Namespace, input.Path);
  const existing = state.variables.get(key);
  if (existing !== undefined && lockedAgainst(existing.Lock, input)) return { result: "conflict", index: state.index, conflict: zeroVariable(input.Namespace, input.Path) };
  if (existing === undefined && state.variables.size >= MAX_VARIABLES) throw invalid(`the agent holds ${MAX_VARIABLES} variables, the most it may`);
  const written: Variable = {
    Namespace: input.Namespace,
    Path: input.Path,
    Lock: lock === "keep" ? (existing?.Lock ?? null) : lock,
    Items: { ...(input.Items ?? {}) },
    CreateIndex: existing?.CreateIndex ?? state.index,
    CreateTime: existing?.CreateTime ?? nowNs,
    ModifyIndex: state.index,
    ModifyTime: nowNs,
  };
  state.variables.put(written);
  return { result: "ok", index: state.index, written };
}

/** Deletes the variable (`svDeleteTxn`): nothing to do when absent; a conflict while its lock is held. */
function deleteVariable(state: Transaction<"variables">, input: VariableInput): ApplyOutcome {
  const key = namespacedKey(input.Namespace, input.Path);
  const existing = state.variables.get(key);
  if (existing === undefined) return { result: "ok", index: state.index, written: undefined };
  if (lockedAgainst(existing.Lock, input)) return { result: "conflict", index: state.index, conflict: zeroVariable(input.Namespace, input.Path) };
  state.variables.delete(key);
  return { result: "ok", index: state.index, written: undefined };
}

/**
 * The check of a check-and-set (`varSetCASTxn`, `svDeleteCASTxn`): the conflict to answer, or
 * undefined when the variable is as the request expects (absent for index 0).
 */
function casConflict(existing: Variable | undefined, input: VariableInput): Variable | undefined {
  if (existing === undefined) return input.ModifyIndex === 0 ? undefined : zeroVariable(input.Namespace, input.Path);
  return input.ModifyIndex === existing.ModifyIndex ? undefined : existing;
}

/** Applies one checked request (see {@link checkRequest}) in one write. */
export async function applyVariable(context: SchedulerContext, op: VarOp, input: VariableInput): Promise<ApplyOutcome> {
  const nowNs = context.clock.nowNs();
  const { result } = await context.store.write(["variables"], (state): ApplyOutcome => {
    const existing = state.variables.get(namespacedKey(input.Namespace, input.Path));
    switch (op) {
      case "set":
        return setVariable(state, input, nowNs, "keep");
      case "cas": {
        const found = casConflict(existing, input);
        return found === undefined ? setVariable(state, input, nowNs, "keep") : { result: "conflict", index: state.index, conflict: found };
      }
      case "delete":
        return deleteVariable(state, input);
      case "delete-cas": {
        if (existing === undefined && input.ModifyIndex === 0) return { result: "ok", index: state.index, written: undefined };
        const found = casConflict(existing, input);
        return found === undefined ? deleteVariable(state, input) : { result: "conflict", index: state.index, conflict: found };
      }
      case "lock-acquire":
        return setVariable(state, input, nowNs, input.Lock as VariableLock);
      case "lock-release":
        return releaseLock(state, input);
    }
  }, "VarApplyState");
  return result;
}

/**
 * Takes the lock off (`VarLockRelease`), the items and `ModifyTime` kept. The reference answers a
 * missing variable or lock with a 500 of its state store's text; here they are the 404 and 409
 * its RPC layer gives the same words.
 */
function releaseLock(state: Transaction<"variables">, input: VariableInput): ApplyOutcome {
  const existing = state.variables.get(namespacedKey(input.Namespace, input.Path));
  if (existing === undefined) throw missing("variable doesn't exist");
  if (existing.Lock === null) throw conflict("variable doesn't hold a lock");
  if (input.Lock !== null && existing.Lock.ID !== input.Lock.ID) return { result: "conflict", index: state.index, conflict: zeroVariable(input.Namespace, input.Path) };
  const written: Variable = { ...existing, Lock: null, ModifyIndex: state.index };
  state.variables.put(written);
  return { result: "ok", index: state.index, written };
}

/**
 * The step names of a lock's timers: its TTL (twice over), then its delay once lost. A timer is the
 * lock's on its variable (namespace, path and ID): the reference keys them by the lock's ID alone,
 * which would let a lock of one namespace renew, release or probe a timer of another's.
 */
const LOCK_STEP_PREFIX = "lock ";
type LockKey = { readonly Namespace: string; readonly Path: string; readonly ID: string };
const lockName = (lock: LockKey) => `${lock.ID} ${namespacedKey(lock.Namespace, lock.Path)}`;
const ttlStep = (lock: LockKey) => `${LOCK_STEP_PREFIX}ttl ${lockName(lock)}`;
const delayStep = (lock: LockKey) => `${LOCK_STEP_PREFIX}delay ${lockName(lock)}`;

/** Whether a scheduled step is a lock's timer (never settled at once: only the clock ends a lock). */
export function isLockStep(name: string): boolean {
  return name.startsWith(LOCK_STEP_PREFIX);
}

/**
 * The leader's lock timers (`nomad/locks.go`), on the scheduler's steps and so on the agent's
 * clock: each lock seen held gets a timer of twice its TTL, which a renewal starts again; when it
 * fires, the lock is lost (renewals are refused) and taken off the variable after its delay.
 */
export class VariableLocks {
  constructor(
    private readonly context: SchedulerContext,
    private readonly steps: StepQueue,
  ) {}

  /**
   * Times the locks of these rows (written, or found when the agent takes the lead): a lock that
   * has no timer gets one, as the reference's leader restores them; a lock gone drops its timers.
   */
  track(variables: Iterable<Variable>): void {
    for (const variable of variables) {
      const lock = variable.Lock;
      if (lock === null) continue;
      const key = { Namespace: variable.Namespace, Path: variable.Path, ID: lock.ID };
      if (this.steps.has(ttlStep(key)) || this.steps.has(delayStep(key))) continue;
      this.#start(variable.Namespace, variable.Path, lock);
    }
  }

  /** Drops the timers of locks no longer held (a release, a variable deleted). */
  forget(locks: Iterable<LockKey>): void {
    const names = new Set([...locks].flatMap((lock) => [ttlStep(lock), delayStep(lock)]));
    if (names.size > 0) this.steps.drop((name) => names.has(name));
  }

  /** Starts the lock's TTL timer again; false when it has none (the lock was lost). */
  renew(variable: Variable & { readonly Lock: VariableLock }): boolean {
    const name = ttlStep({ Namespace: variable.Namespace, Path: variable.Path, ID: variable.Lock.ID });
    if (!this.steps.has(name)) return false;
    this.steps.drop((each) => each === name);
    this.#start(variable.Namespace, variable.Path, variable.Lock);
    return true;
  }

  #start(namespace: string, path: string, lock: VariableLock): void {
    const key = { Namespace: namespace, Path: path, ID: lock.ID };
    this.steps.defer(ttlStep(key), (lock.TTL * 2) / 1e6, async () => {
      this.steps.defer(delayStep(key), lock.LockDelay / 1e6, () => this.#expire(namespace, path, lock.ID));
    });
  }

  /** Takes a lost lock off its variable, when it still holds that lock (`invalidateVariableLock`). */
  async #expire(namespace: string, path: string, lockId: string): Promise<void> {
    await this.context.store.write(["variables"], (state) => {
      const existing = state.variables.get(namespacedKey(namespace, path));
      if (existing?.Lock?.ID !== lockId) return;
      state.variables.put({ ...existing, Lock: null, ModifyIndex: state.index });
    }, "VarApplyState");
  }
}
