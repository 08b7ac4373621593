/**
 * The request journal: every request the agent served (all but the control routes'), so that a
 * test can assert what its code sent, with a bexpr filter:
 * `agent.requests('Method == "PUT" and Status == 400')`.
 *
 * Requests are observed at the socket's side of the server, before the router and the lane of
 * repeated list requests, so the journal holds the answers the lane wrote too; the router tells it
 * which requests a control route answered ({@link Journal.skip}), and those are left out. An entry is kept
 * as it was recorded (method, target, Node's headers, status, index, times) and turned into its
 * JSON shape, {@link JournalEntry}, when it is first read: its headers are copied then, with
 * secrets redacted, so that a request the lane answers in microseconds copies none.
 *
 * The journal is bounded by entries and by memory; the oldest entries are dropped first, and the
 * number dropped is counted, so a test can tell a journal that saw everything from one that did
 * not.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { CostBudget } from "../../evaluator/cost.js";
import type { Filter } from "../../evaluator/compile.js";
import { compileFilter } from "../../filter.js";
import { pathOf } from "./access.js";
import { TOKEN_HEADERS } from "../base/header-names.js";

/**
 * The most entries the journal keeps. A test suite's agent serves a few hundred requests per test;
 * 10,000 holds the longest tests whole and costs a few MB.
 */
export const MAX_JOURNAL_ENTRIES = 10_000;

/**
 * The most memory the journal's entries may weigh together (see {@link journalEntryBytes}):
 * 16 MiB. A request's line and headers may take 1 MiB (`MAX_HEADER_BYTES`), so this holds at
 * least 16 of the largest requests, and the entry limit binds long before for ordinary ones.
 */
export const JOURNAL_BYTES = 16 * 1024 * 1024;

/** What an entry weighs besides its strings (see {@link journalEntryBytes}): the record and its numbers. */
export const JOURNAL_ENTRY_OVERHEAD_BYTES = 256;

/** The value kept in place of a secret header's. */
export const REDACTED = "[redacted]";

/**
 * Request headers whose values are secrets, never shown: the token header of every header style
 * (`X-Svc-Token`, `X-Nomad-Token`: one the agent's style does not read still carries a secret),
 * HTTP authentication (`Authorization: Bearer <secret>` carries tokens too), and cookies. A
 * redacted header still shows that it was sent.
 */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([...TOKEN_HEADERS, "authorization", "proxy-authorization", "cookie"]);

/**
 * What a filter over a request sees before it is answered (fault rules filter on it): the
 * request's part of a {@link JournalEntry}.
 */
export interface JournalRequest {
  /** The method, as sent (`GET`, `PUT`…). */
  readonly Method: string;
  /** The path, as sent (percent-encoded), without the query. */
  readonly Path: string;
  /**
   * The query parameters, each with its first value decoded, as the agent (and the reference,
   * with Go's `Query().Get`) reads them: `Query.namespace == "prod"`.
   */
  readonly Query: Readonly<Record<string, string>>;
  /** The query string as sent, without the `?` (every value, repeated parameters included). */
  readonly RawQuery: string;
  /**
   * The headers by lower-case name; repeated headers joined with `, `. The values of
   * {@link SECRET_HEADERS} are {@link REDACTED}.
   */
  readonly Headers: Readonly<Record<string, string>>;
  /** When the request arrived, in milliseconds since the epoch, on the agent's clock. */
  readonly Time: number;
}

/** A request the agent served, as the journal lists it and its filters see it. */
export interface JournalEntry extends JournalRequest {
  /** The status answered; 0 when the client left before the answer was written. */
  readonly Status: number;
  /** Milliseconds from the request's arrival to its answer's last byte (real time). */
  readonly DurationMs: number;
  /** The answer's index header (`X-Svc-Index`, `X-Nomad-Index` in the nomad header style), or 0 when it had none. */
  readonly Index: number;
  /** The ID of the fault that answered or delayed the request, or `""`. */
  readonly Fault: string;
}

/** Headers as Node gives them. */
type RawHeaders = IncomingMessage["headers"];

/** The request's headers by lower-case name, repeated ones joined, secrets redacted. */
export function keptHeaders(headers: RawHeaders): Record<string, string> {
  // No prototype: a header named `__proto__` is a key like any other.
  const kept: Record<string, string> = Object.create(null) as Record<string, string>;
  // Keys, not entries: one array a request rather than one more for each header (every request is kept).
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    kept[name] = SECRET_HEADERS.has(name) ? REDACTED : Array.isArray(value) ? value.join(", ") : value;
  }
  return kept;
}

/**
 * What the headers {@link keptHeaders} makes of `headers` weigh in {@link journalEntryBytes}
 * (their names and values, a secret's as {@link REDACTED}), counted without making them: an entry
 * keeps Node's headers and makes its own only when it is read.
 */
export function keptHeadersBytes(headers: RawHeaders): number {
  let bytes = 0;
  // `for…in` with an own-property check: the names Object.keys gives, without its array.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    if (SECRET_HEADERS.has(name)) bytes += REDACTED.length;
    else if (Array.isArray(value)) bytes += value.reduce((sum, part) => sum + part.length, 2 * (value.length - 1));
    else bytes += value.length;
    bytes += name.length;
  }
  return bytes;
}

/** A request target without a fragment (clients should not send one; the router ignores it). */
export function withoutFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/** The request part of an entry, from its method, target (without a fragment) and kept headers. */
export function describeRequest(method: string, url: string, headers: Readonly<Record<string, string>>, time: number): JournalRequest {
  const path = pathOf(url);
  const rawQuery = url.length > path.length ? url.slice(path.length + 1) : "";
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(rawQuery)) if (!(name in query)) query[name] = value;
  return { Method: method, Path: path, Query: query, RawQuery: rawQuery, Headers: headers, Time: time };
}

/**
 * What an entry weighs against {@link JOURNAL_BYTES}: {@link JOURNAL_ENTRY_OVERHEAD_BYTES}, plus
 * one byte per character of its method, path, raw query, and header names and values.
 */
export function journalEntryBytes(entry: Pick<JournalRequest, "Method" | "Path" | "RawQuery" | "Headers">): number {
  let bytes = 0;
  for (const name in entry.Headers) bytes += name.length + entry.Headers[name]!.length;
  return requestBytes(entry.Method, entry.Path.length + entry.RawQuery.length, bytes);
}

/** {@link journalEntryBytes} of a request whose path and raw query have `targetLength` characters together, and whose headers weigh `headerBytes`. */
function requestBytes(method: string, targetLength: number, headerBytes: number): number {
  return JOURNAL_ENTRY_OVERHEAD_BYTES + method.length + targetLength + headerBytes;
}

/** The characters of a target's path and raw query together (its `?` left out), counted without cutting it in two as {@link describeRequest} does. */
function targetLength(url: string): number {
  return url.includes("?") ? url.length - 1 : url.length;
}

/** One request as recorded; its JSON shape is made when first read. */
interface JournalRecord {
  readonly method: string;
  readonly url: string;
  /**
   * The request's headers as Node gave them (nothing changes them once it is answered), or the
   * same headers of the record before it ({@link sameHeaders}): the kept ones ({@link keptHeaders},
   * secrets redacted) are made from them when the entry is first read, not for every request.
   */
  readonly rawHeaders: RawHeaders;
  readonly time: number;
  readonly status: number;
  readonly durationMs: number;
  readonly index: number;
  readonly fault: string;
  readonly bytes: number;
  entry?: JournalEntry;
}

/**
 * Whether two requests' headers (as Node gives them) are the same: the same names, in the same
 * order, with the same values. A client polling a list sends the same headers again and again.
 */
export function sameHeaders(a: RawHeaders, b: RawHeaders): boolean {
  if (a === b) return true;
  // Names in the order each object holds them: `for…in` over both, side by side, without arrays.
  let names = 0;
  for (const name in b) {
    if (!Object.hasOwn(b, name)) continue;
    names += 1;
    if (!Object.hasOwn(a, name)) return false;
    const left = a[name];
    const right = b[name];
    if (left === right) continue;
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length || left.some((part, i) => part !== right[i])) return false;
  }
  for (const name in a) if (Object.hasOwn(a, name)) names -= 1;
  return names === 0;
}

/**
 * The JSON shape of a record (made once, and frozen: every query hands out the same objects);
 * records that share their headers ({@link Journal}'s `#close`) share their kept copy, made once
 * into `kept`.
 */
function entryOf(record: JournalRecord, kept: WeakMap<RawHeaders, Readonly<Record<string, string>>>): JournalEntry {
  if (record.entry !== undefined) return record.entry;
  let headers = kept.get(record.rawHeaders);
  if (headers === undefined) kept.set(record.rawHeaders, (headers = Object.freeze(keptHeaders(record.rawHeaders))));
  const request = describeRequest(record.method, record.url, headers, record.time);
  Object.freeze(request.Query);
  record.entry = Object.freeze({
    ...request,
    Status: record.status,
    DurationMs: record.durationMs,
    Index: record.index,
    Fault: record.fault,
  });
  return record.entry;
}

/**
 * A request the journal observes until its response closes (see {@link Journal.observe}): what it
 * knew when the request arrived, and the index of an answer the lane wrote.
 */
export class JournalObservation {
  /** The index of the answer, when the lane wrote it (see {@link JournalObservation.answered}); read from its index header otherwise. */
  index: number | undefined = undefined;
  /** Whether its entry was written (its response's `close` may come more than once). */
  recorded = false;

  /**
   * @param url - the request's target, without a fragment.
   * @param time - when it arrived, on the agent's clock (epoch milliseconds).
   * @param start - when it arrived, by `performance.now()` (its duration's start).
   */
  constructor(
    readonly url: string,
    readonly time: number,
    readonly start: number,
  ) {}

  /**
   * Notes the index of an answer written without headers set before it (the lane of repeated list
   * requests writes them at once, and Node keeps none of them readable then).
   */
  answered(index: number): void {
    this.index = index;
  }
}

/** Options of a {@link Journal}. */
export interface JournalOptions {
  /** The agent's clock, in milliseconds since the epoch (the entries' `Time`). */
  readonly now: () => number;
  /** The cost budget of one query's filter over all the entries (the agent's `limits.filterCostPerRequest`). */
  readonly filterCostPerQuery: number;
  /** The name of the answers' index header, in the agent's header style (an entry's `Index`). */
  readonly indexHeader: string;
}

/** The request journal of one agent (see the module's description). */
export class Journal {
  /** The entries, oldest first, from `#head` on (the slots before it were dropped). */
  #records: (JournalRecord | undefined)[] = [];
  #head = 0;
  #bytes = 0;
  #dropped = 0;
  /** The fault that answered or delayed each request still being answered. */
  readonly #faults = new WeakMap<IncomingMessage, string>();
  /** The requests still being answered that are left out (a control route's). */
  readonly #skipped = new WeakSet<IncomingMessage>();
  /** The kept copy of each headers object some records share ({@link sameHeaders}), made when first read. */
  readonly #kept = new WeakMap<RawHeaders, Readonly<Record<string, string>>>();

  constructor(private readonly options: JournalOptions) {}

  /** How many entries it holds. */
  get size(): number {
    return this.#records.length - this.#head;
  }

  /** What its entries weigh (see {@link journalEntryBytes}). */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many entries were dropped, oldest first, to stay within its limits since it was last cleared. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Starts recording a request: its entry is written when its answer is (or when the client
   * leaves first), unless it is {@link skip}ped meanwhile. The observation returned is where the
   * lane of repeated list requests notes its answer's index ({@link JournalObservation.answered}).
   */
  observe(request: IncomingMessage, response: ServerResponse): JournalObservation {
    const observation = new JournalObservation(withoutFragment(request.url ?? ""), this.options.now(), performance.now());
    // `close` follows `finish` when the answer was written, and comes alone when the client left
    // (more than once then: the observation records the first). A listener of its own rather than
    // `once`, whose wrapper is two more objects a request and a search of the listeners to remove it.
    response.on("close", () => this.#close(request, response, observation));
    return observation;
  }

  /** Writes the entry of an observed request whose response closed (the first time it does). */
  #close(request: IncomingMessage, response: ServerResponse, observation: JournalObservation): void {
    if (observation.recorded) return;
    observation.recorded = true;
    if (this.#skipped.has(request)) return;
    const { time, start } = observation;
    const index = observation.index ?? Number(response.getHeader(this.options.indexHeader) ?? 0);
    const { headers } = request;
    const method = request.method ?? "";
    // A request like the one before it (a client polling a page) keeps that one's target and headers
    // rather than its own: its own then die young, where each kept would be copied into the old
    // generation and left there as garbage once the entry is dropped, bringing full collections of
    // the whole heap sooner (measured under wrk: one of 0.3 to 0.85 s each few hundred thousand requests).
    const newest = this.#records[this.#records.length - 1];
    const url = newest !== undefined && newest.url === observation.url ? newest.url : observation.url;
    const shared = newest !== undefined && sameHeaders(newest.rawHeaders, headers);
    const rawHeaders = shared ? newest.rawHeaders : headers;
    // Shared headers weigh what they did in the entry before: its weight less its method's and target's.
    const headerBytes = shared ? newest.bytes - requestBytes(newest.method, targetLength(newest.url), 0) : keptHeadersBytes(headers);
    this.#add({
      method,
      url,
      rawHeaders,
      time,
      status: response.writableFinished ? response.statusCode : 0,
      durationMs: Math.round((performance.now() - start) * 1000) / 1000,
      index: Number.isSafeInteger(index) ? index : 0,
      fault: this.#faults.get(request) ?? "",
      bytes: requestBytes(method, targetLength(url), headerBytes),
    });
  }

  /** Leaves `request` out of the journal (a control route answers it). */
  skip(request: IncomingMessage): void {
    this.#skipped.add(request);
  }

  /** Notes that fault `id` answered or delayed `request`. */
  markFault(request: IncomingMessage, id: string): void {
    this.#faults.set(request, id);
  }

  #add(record: JournalRecord): void {
    this.#records.push(record);
    this.#bytes += record.bytes;
    while (this.size > MAX_JOURNAL_ENTRIES || this.#bytes > JOURNAL_BYTES) {
      const oldest = this.#records[this.#head]!;
      this.#records[this.#head++] = undefined;
      this.#bytes -= oldest.bytes;
      this.#dropped += 1;
    }
    // The dropped slots are let go of once they are half the array.
    if (this.#head > 1024 && this.#head * 2 > this.#records.length) {
      this.#records = this.#records.slice(this.#head);
      this.#head = 0;
    }
  }

  /**
   * The entries, oldest first, that match `filter` (all without one). The filter is compiled in
   * untyped mode and its evaluations share one cost budget.
   *
   * @throws FilterSyntaxError for a filter that is not valid; FilterEvaluationError when an entry
   *   cannot be evaluated (a comparison of a map, say) or the budget runs out.
   */
  query(filter?: string): JournalEntry[] {
    const compiled: Filter<JournalEntry> | undefined = filter === undefined || filter === "" ? undefined : compileFilter<JournalEntry>(filter);
    const budget = new CostBudget(this.options.filterCostPerQuery);
    const entries: JournalEntry[] = [];
    for (let position = this.#head; position < this.#records.length; position++) {
      const entry = entryOf(this.#records[position]!, this.#kept);
      if (compiled === undefined || compiled.test(entry, budget)) entries.push(entry);
    }
    return entries;
  }

  /** Empties the journal and resets its count of dropped entries. */
  clear(): void {
    this.#records = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#dropped = 0;
  }
}
