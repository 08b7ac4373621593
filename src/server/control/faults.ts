/**
 * Faults: rules that make the agent answer a request with a chosen status and body instead of
 * its route, or answer it late, so that a test suite can check how its code copes with errors and
 * slowness (WireMock's faults, LocalStack's chaos API).
 *
 * A rule selects requests by method, path (exact, or a prefix ending in `*`) and a bexpr filter
 * over the request ({@link JournalRequest}: `Query.namespace == "prod"`); then, if it has a
 * probability, draws whether to fire (from its own generator when it has a seed, so that a run
 * is reproducible). Rules are tried in the order they were added; the first that fires decides.
 * A rule with a count fires that many times, then is spent; spent rules stay listed with how many
 * times they fired until removed.
 *
 * Faults never apply to the control routes, which are how a test removes them.
 *
 * @module
 */
import type { Filter } from "../../evaluator/compile.js";
import { CostBudget } from "../../evaluator/cost.js";
import { FilterEvaluationError, FilterSyntaxError } from "../../errors.js";
import { compileFilter } from "../../filter.js";
import { stringifyJson } from "../../json.js";
import { isControlPath } from "./access.js";
import type { JournalRequest } from "./journal.js";

/** The most rules an agent holds, spent ones included: every request is checked against each. */
export const MAX_FAULTS = 1_000;

/**
 * The longest latency a rule may add: 10 minutes, the longest a blocking query waits, so a delayed
 * answer never takes longer than the slowest real one could.
 */
export const MAX_FAULT_LATENCY_MS = 600_000;

/** The largest body a rule may answer with, in bytes of UTF-8 (strings) or of JSON text. */
export const MAX_FAULT_BODY_BYTES = 1024 * 1024;

/** The largest seed: seeds are 32-bit. */
export const MAX_FAULT_SEED = 0xffff_ffff;

/**
 * Response headers a rule may not set: the ones that frame the body on the connection (set from
 * the body itself) or say how it is encoded (the compression the client negotiated decides).
 */
export const FRAMING_HEADERS: ReadonlySet<string> = new Set(["content-length", "transfer-encoding", "connection", "content-encoding"]);

/** A fault rule, as added (every field optional; at least a status or a latency). */
export interface FaultRule {
  /** The method it applies to (any case; any method when absent). */
  readonly method?: string;
  /** The exact path it applies to (`/v1/jobs`), or a prefix ending in `*` (`/v1/job/*`); any path when absent. */
  readonly path?: string;
  /** A bexpr filter over the request ({@link JournalRequest}): `Query.namespace == "prod"`. */
  readonly filter?: string;
  /** The status to answer with (200 to 599); without one, the rule only delays the real answer. */
  readonly status?: number;
  /** The body to answer with: a string (sent as text), or any other JSON value (sent as JSON). Needs a status. */
  readonly body?: unknown;
  /** Response headers to add (they may replace the Content-Type). Need a status. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Milliseconds to wait before answering (0 to {@link MAX_FAULT_LATENCY_MS}). */
  readonly latencyMs?: number;
  /** The chance that a request the rule selects is faulted, from 0 to 1 (default 1). */
  readonly probability?: number;
  /** How many times it fires, then it is spent (default: no end). */
  readonly count?: number;
  /** A seed (0 to {@link MAX_FAULT_SEED}) for the probability's draws, so a run can be repeated. */
  readonly seed?: number;
}

/** A rule as listed: the rule as added, its ID, and how it has fared. */
export interface Fault extends FaultRule {
  /** Its ID: `f1`, `f2`…, never reused by the agent. */
  readonly id: string;
  /** How many times it fired. */
  readonly fired: number;
  /** Whether it fired its `count` times and fires no more. */
  readonly spent: boolean;
  /** Why its filter could not be evaluated on the last request it failed on (that request was not faulted). */
  readonly lastError?: string;
}

/** A rule that is not valid; `field` names the field at fault (`""` for the rule as a whole). */
export class FaultRuleError extends Error {
  /** Always `"FaultRuleError"`. */
  override readonly name = "FaultRuleError";
  /** The field at fault (`status`, `filter`…), or `""` for the rule as a whole. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/** What a fault does to a request that it fired on. */
export interface FaultAction {
  /** The rule's ID. */
  readonly id: string;
  /** Milliseconds to wait first (0 for none). */
  readonly latencyMs: number;
  /** The answer instead of the route's, or undefined to let the route answer. */
  readonly answer?: FaultAnswer;
}

/** A fault's answer. */
export interface FaultAnswer {
  /** The status. */
  readonly status: number;
  /** The body, empty for none. */
  readonly body: Buffer;
  /** The body's Content-Type (undefined with an empty body). */
  readonly contentType: string | undefined;
  /** The rule's headers, names lower-case. */
  readonly headers: readonly (readonly [string, string])[];
}

/** The request a rule is matched against: method and path at once, the rest made when a filter needs it. */
export interface FaultRequest {
  /** The method, as sent. */
  readonly method: string;
  /** The path, as sent, without the query. */
  readonly path: string;
  /** The request as a filter sees it (made only when a rule has a filter). */
  describe(): JournalRequest;
}

/** The fields of a {@link FaultRule}. */
export const FAULT_RULE_FIELDS = ["method", "path", "filter", "status", "body", "headers", "latencyMs", "probability", "count", "seed"] as const;

const FIELDS: ReadonlySet<string> = new Set(FAULT_RULE_FIELDS);

/** An HTTP token (RFC 9110): methods and header names. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A header value Node sends as it is: no control characters but tab. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A rule, checked and ready to match. */
interface CompiledRule {
  readonly id: string;
  readonly rule: FaultRule;
  readonly method: string | undefined;
  /** The exact path, or the prefix before the `*`. */
  readonly path: string | undefined;
  readonly prefix: boolean;
  readonly filter: Filter<JournalRequest> | undefined;
  readonly probability: number;
  readonly draw: () => number;
  readonly action: FaultAction;
  readonly count: number;
  fired: number;
  lastError: string | undefined;
}

/** A whole number from `min` to `max`, or the rule's error. */
function wholeNumber(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new FaultRuleError(field, `${field} must be a whole number from ${min} to ${max}, got ${shown(value)}`);
  }
  return value;
}

function shown(value: unknown): string {
  const text = typeof value === "bigint" ? String(value) : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * The 32-bit generator mulberry32: small, fast, and the same numbers on every platform for a
 * seed, which is all a reproducible fault needs (it is not for secrets).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Checks a rule and compiles its filter and answer. */
function compileRule(id: string, value: unknown): CompiledRule {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FaultRuleError("", `a fault rule must be a JSON object, got ${shown(value)}`);
  const rule = value as Record<string, unknown>;
  for (const key of Object.keys(rule)) {
    if (!FIELDS.has(key)) throw new FaultRuleError(key, `unknown field ${JSON.stringify(key)} in the fault rule; known fields: ${[...FIELDS].join(", ")}`);
  }
  const { method, path, filter, status, body, headers, latencyMs, probability, count, seed } = rule;

  if (method !== undefined && (typeof method !== "string" || !TOKEN.test(method))) throw new FaultRuleError("method", `method must be an HTTP method such as "GET", got ${shown(method)}`);
  if (path !== undefined) {
    if (typeof path !== "string" || !path.startsWith("/")) throw new FaultRuleError("path", `path must start with "/", got ${shown(path)}`);
    if (path.indexOf("*") !== -1 && path.indexOf("*") !== path.length - 1) throw new FaultRuleError("path", `path may hold "*" only at its end (a prefix), got ${shown(path)}`);
    if (!path.endsWith("*") && isControlPath(path)) throw new FaultRuleError("path", `faults never apply to the control routes, such as ${path}`);
  }
  let compiled: Filter<JournalRequest> | undefined;
  if (filter !== undefined) {
    if (typeof filter !== "string") throw new FaultRuleError("filter", `filter must be a string, got ${shown(filter)}`);
    try {
      compiled = filter === "" ? undefined : compileFilter<JournalRequest>(filter);
    } catch (error) {
      if (error instanceof FilterSyntaxError) throw new FaultRuleError("filter", `failed to read filter expression: ${error.message}`);
      throw error;
    }
  }
  if (status !== undefined) wholeNumber(status, "status", 200, 599);
  if (latencyMs !== undefined) wholeNumber(latencyMs, "latencyMs", 0, MAX_FAULT_LATENCY_MS);
  if (status === undefined && latencyMs === undefined) throw new FaultRuleError("", "a fault rule needs a status (to answer instead of the route), a latencyMs (to delay the answer), or both");
  if (status === undefined && (body !== undefined || headers !== undefined)) throw new FaultRuleError(body !== undefined ? "body" : "headers", "a fault rule with a body or headers needs a status");
  if (probability !== undefined && (typeof probability !== "number" || !(probability >= 0 && probability <= 1))) {
    throw new FaultRuleError("probability", `probability must be a number from 0 to 1, got ${shown(probability)}`);
  }
  if (count !== undefined) wholeNumber(count, "count", 1, Number.MAX_SAFE_INTEGER);
  if (seed !== undefined) wholeNumber(seed, "seed", 0, MAX_FAULT_SEED);

  const answer = status === undefined ? undefined : compileAnswer(status as number, body, headers);
  const prefix = typeof path === "string" && path.endsWith("*");
  return {
    id,
    rule: Object.freeze({ ...(rule as FaultRule) }),
    method: typeof method === "string" ? method.toUpperCase() : undefined,
    path: typeof path === "string" ? (prefix ? path.slice(0, -1) : path) : undefined,
    prefix,
    filter: compiled,
    probability: (probability as number | undefined) ?? 1,
    draw: seed === undefined ? Math.random : seededRandom(seed as number),
    action: { id, latencyMs: (latencyMs as number | undefined) ?? 0, ...(answer === undefined ? {} : { answer }) },
    count: (count as number | undefined) ?? Infinity,
    fired: 0,
    lastError: undefined,
  };
}

/** A rule's answer: its body written once, its headers checked. */
function compileAnswer(status: number, body: unknown, headers: unknown): FaultAnswer {
  let bytes = Buffer.alloc(0);
  let contentType: string | undefined;
  if (typeof body === "string") {
    bytes = Buffer.from(body);
    contentType = "text/plain; charset=utf-8";
  } else if (body !== undefined) {
    let text: string | undefined;
    try {
      text = stringifyJson(body);
    } catch (error) {
      throw new FaultRuleError("body", `body must be a string or a JSON value: ${(error as Error).message}`);
    }
    if (typeof text !== "string") throw new FaultRuleError("body", `body must be a string or a JSON value, got ${shown(body)}`);
    bytes = Buffer.from(text);
    contentType = "application/json";
  }
  if (bytes.length > MAX_FAULT_BODY_BYTES) throw new FaultRuleError("body", `body is ${bytes.length} bytes; a fault's body may have at most ${MAX_FAULT_BODY_BYTES}`);
  if ((status === 204 || status === 304) && bytes.length > 0) throw new FaultRuleError("body", `a ${status} answer has no body`);
  const pairs: [string, string][] = [];
  if (headers !== undefined) {
    if (typeof headers !== "object" || headers === null || Array.isArray(headers)) throw new FaultRuleError("headers", `headers must be an object of names and string values, got ${shown(headers)}`);
    for (const [name, value] of Object.entries(headers)) {
      if (!TOKEN.test(name)) throw new FaultRuleError("headers", `${shown(name)} is not a header name`);
      if (FRAMING_HEADERS.has(name.toLowerCase())) throw new FaultRuleError("headers", `the header ${name} is set by the agent from the body; a fault may not set it`);
      if (typeof value !== "string" || !HEADER_VALUE.test(value)) throw new FaultRuleError("headers", `the value of header ${name} must be a string without control characters, got ${shown(value)}`);
      pairs.push([name.toLowerCase(), value]);
    }
  }
  return { status, body: bytes, contentType, headers: pairs };
}

/** The fault rules of one agent (see the module's description). */
export class Faults {
  readonly #rules: CompiledRule[] = [];
  #next = 1;
  #active = 0;

  constructor(private readonly filterCostPerRequest: number) {}

  /** How many rules may still fire; while none may, requests are not checked. */
  get active(): number {
    return this.#active;
  }

  /**
   * Adds a rule after the others and returns its ID.
   *
   * @throws FaultRuleError for a rule that is not valid, or when {@link MAX_FAULTS} rules are held.
   */
  add(rule: FaultRule): string {
    if (this.#rules.length >= MAX_FAULTS) throw new FaultRuleError("", `the agent holds ${MAX_FAULTS} fault rules, the most it may; remove some first`);
    const compiled = compileRule(`f${this.#next}`, rule);
    this.#next += 1;
    this.#rules.push(compiled);
    this.#active += 1;
    return compiled.id;
  }

  /** Removes a rule; returns whether it was there. */
  remove(id: string): boolean {
    const position = this.#rules.findIndex((rule) => rule.id === id);
    if (position === -1) return false;
    const [removed] = this.#rules.splice(position, 1);
    if (removed!.fired < removed!.count) this.#active -= 1;
    return true;
  }

  /** Removes every rule. */
  clear(): void {
    this.#rules.length = 0;
    this.#active = 0;
  }

  /** The rules, in the order they are tried. */
  list(): Fault[] {
    return this.#rules.map((rule) => ({
      ...rule.rule,
      id: rule.id,
      fired: rule.fired,
      spent: rule.fired >= rule.count,
      ...(rule.lastError === undefined ? {} : { lastError: rule.lastError }),
    }));
  }

  /**
   * The fault that fires on a request, counted as fired, or undefined. The filters of all the
   * rules share one cost budget per request; a rule whose filter fails on the request (or runs
   * out of budget) does not fire, and keeps the reason as its `lastError`.
   */
  fire(request: FaultRequest): FaultAction | undefined {
    if (this.#active === 0) return undefined;
    let described: JournalRequest | undefined;
    let budget: CostBudget | undefined;
    for (const rule of this.#rules) {
      if (rule.fired >= rule.count) continue;
      if (rule.method !== undefined && rule.method !== request.method) continue;
      if (rule.path !== undefined && !(rule.prefix ? request.path.startsWith(rule.path) : request.path === rule.path)) continue;
      if (rule.filter !== undefined) {
        described ??= request.describe();
        budget ??= new CostBudget(this.filterCostPerRequest);
        try {
          if (!rule.filter.test(described, budget)) continue;
        } catch (error) {
          if (!(error instanceof FilterEvaluationError)) throw error;
          rule.lastError = error.message;
          continue;
        }
      }
      if (rule.probability < 1 && !(rule.draw() < rule.probability)) continue;
      rule.fired += 1;
      if (rule.fired >= rule.count) this.#active -= 1;
      return rule.action;
    }
    return undefined;
  }
}
