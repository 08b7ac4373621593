/**
 * The event stream (`GET /v1/event/stream`): every write the store applies, the agent's own and,
 * on a shared store, the other agents', becomes a frame `{"Index": N, "Events": [...]}` with one
 * event per changed row; the last frames are kept in a bounded buffer, and each subscriber walks
 * that one buffer with a cursor (no copy per subscriber), filtered by topic, key, namespace and the
 * caller's ACL, event by event.
 *
 * Each event is written as JSON once, into bytes every stream shares; a stream sends a frame as
 * slices of those bytes, never more than {@link EVENT_QUEUE_BYTES} waiting in its socket whatever
 * the frame's size. A stream whose socket does not take what it is sent keeps its place in the
 * buffer, and is cut off when the frame it is due leaves the buffer: at the end of a frame with an
 * error line, then the end of the stream; in the middle of one (it cannot be finished) by closing
 * the connection. So a slow or stalled client holds at most that many bytes of the agent's memory
 * besides the buffer, never makes the buffer keep more, and at most {@link EVENT_STREAMS_MAX}
 * streams are open at once.
 *
 * @module
 */
import { stringifyJson } from "../../json.js";
import { lowerBound } from "../state/memory.js";
import type { AppliedWrite, Store } from "../state/store.js";
import type { Allocation, Evaluation, Job, JsonObject, Node } from "../state/model.js";
import type { AccessControl, Caller } from "./acl.js";
import { busy, denied, invalid } from "./errors.js";
import { presentAllocation, presentEvaluation, presentJob, presentNode } from "./present.js";

/** The most writes whose frames the buffer keeps (the reference's `event_buffer_size` default). */
export const EVENT_BUFFER_WRITES = 100;

/**
 * The most bytes of events the buffer keeps (their JSON size, estimated from the rows, which are
 * written as JSON only when a stream first sends them); the newest frame is kept whatever its size.
 * The reference has no such bound: 100 writes of 4 MiB jobs would hold 400 MiB.
 */
export const EVENT_BUFFER_BYTES = 16 * 1024 * 1024;

/** How often a stream sends the heartbeat `{}` (the reference's 30 s); one is also sent at once. */
export const EVENT_HEARTBEAT_MS = 30_000;

/**
 * The most bytes written to one stream and not yet taken by its client's socket. Past it the
 * stream is sent nothing more until the socket drains; it keeps its place in the shared buffer and
 * is cut off when a frame it has not been sent leaves the buffer.
 */
export const EVENT_QUEUE_BYTES = 256 * 1024;

/**
 * The most event streams open at once (all clients together); one more is refused with `429`.
 * The reference has no such bound; each stream costs the agent a walk of every write's events, so
 * a thousand idle readers slowed writes to a few a second.
 */
export const EVENT_STREAMS_MAX = 128;

/** The index of the store's seed: the state a new store starts with (the default namespace, the agent's nodes). */
const SEED_INDEX = 1;

/** The topics the agent sends events of, in the order of a frame's events. */
export type EventTopic = "Job" | "Evaluation" | "Allocation" | "Deployment" | "Node";

/**
 * Topics the reference has and the agent never sends events of: accepted in `topic`, they select
 * nothing (a stream of them sends only heartbeats).
 */
export const SILENT_TOPICS = ["NodePool", "ACLPolicy", "ACLToken", "ACLRole", "ACLAuthMethod", "ACLBindingRule", "Service"] as const;

/** The topic value that selects every topic, and the key value that selects every key. */
export const ALL = "*";

/** A row of a table, read generically: the scheduler's rows gain fields, and the stream need not follow each one. */
type Row = JsonObject;

/** How the rows of one table become events of one topic. */
interface TopicDefinition {
  readonly topic: EventTopic;
  /** The store table whose changed rows are this topic's events. */
  readonly table: string;
  /** The event `Type` of a row put. */
  readonly putType: string;
  /** The event `Type` of a row deleted; undefined: deletions make no event (as the reference, for evaluations, allocations and deployments). */
  readonly deleteType?: string;
  /** Whether the events belong to a namespace (and need `read-job` there); otherwise `node:read`. */
  readonly namespaced: boolean;
  /** The event's `Key`. */
  key(row: Row): string;
  /** The event's `FilterKeys`: more values a `topic=<Topic>:<key>` matches (the reference's). */
  filterKeys(row: Row): readonly string[] | null;
  /** What the payload shows of a deleted row, from its table key (the row itself is gone). */
  deleted(tableKey: string): Row;
  /** The row as the payload shows it: as the agent's read endpoints present it (`present.ts`). */
  present(row: Row): unknown;
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A job's table key is `<namespace>\0<ID>`. */
function jobOfKey(tableKey: string): Row {
  const at = tableKey.indexOf("\u0000");
  return { ID: tableKey.slice(at + 1), Namespace: tableKey.slice(0, at) };
}

/** Every topic the agent sends, in a frame's order; the Payload key is the topic's name. */
const TOPICS: readonly TopicDefinition[] = [
  {
    topic: "Job",
    table: "jobs",
    putType: "JobRegistered",
    deleteType: "JobDeregistered",
    namespaced: true,
    key: (row) => text(row.ID),
    filterKeys: () => null,
    deleted: jobOfKey,
    present: (row) => presentJob(row as unknown as Job),
  },
  {
    topic: "Evaluation",
    table: "evals",
    putType: "EvaluationUpdated",
    namespaced: true,
    key: (row) => text(row.ID),
    filterKeys: (row) => [text(row.JobID), text(row.DeploymentID)],
    deleted: (key) => ({ ID: key }),
    present: (row) => presentEvaluation(row as unknown as Evaluation),
  },
  {
    topic: "Allocation",
    table: "allocs",
    putType: "AllocationUpdated",
    namespaced: true,
    key: (row) => text(row.ID),
    filterKeys: (row) => [text(row.JobID), text(row.DeploymentID)],
    deleted: (key) => ({ ID: key }),
    // The reference sends the allocation without its copy of the job.
    present: (row) => presentAllocation(row as unknown as Allocation, null),
  },
  {
    topic: "Deployment",
    table: "deployment",
    putType: "DeploymentStatusUpdate",
    namespaced: true,
    key: (row) => text(row.ID),
    filterKeys: (row) => [text(row.JobID)],
    deleted: (key) => ({ ID: key }),
    // As stored, as the deployment endpoints write it.
    present: publicFields,
  },
  {
    topic: "Node",
    table: "nodes",
    putType: "NodeRegistration",
    deleteType: "NodeDeregistration",
    namespaced: false,
    key: (row) => text(row.ID),
    filterKeys: () => null,
    deleted: (key) => ({ ID: key }),
    // Sanitized as the reference sends it (no secret).
    present: (row) => presentNode(row as unknown as Node),
  },
];

/** The names `topic` accepts: the agent's topics, the reference's silent ones, and `*`. */
const KNOWN_TOPICS: ReadonlySet<string> = new Set([ALL, ...TOPICS.map((definition) => definition.topic), ...SILENT_TOPICS]);

/** The topics and keys a stream asked for: topic (or `*`) → keys (a key `*` selects all). */
export type TopicSelection = ReadonlyMap<string, readonly string[]>;

/**
 * Reads the `topic` parameters (`Topic` or `Topic:Key`, repeated): none selects every topic. A
 * value with more than one `:` is the reference's 400; a topic name neither the agent nor the
 * reference knows is a 400 too (the reference accepts it and sends only heartbeats).
 *
 * @throws a 400 refusal naming the value.
 */
export function parseEventTopics(values: readonly string[]): TopicSelection {
  if (values.length === 0) return new Map([[ALL, [ALL]]]);
  const topics = new Map<string, string[]>();
  for (const value of values) {
    const parts = value.split(":");
    if (parts.length > 2) throw invalid(`Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: ${value}`);
    const [topic, key = ALL] = parts as [string, string?];
    if (!KNOWN_TOPICS.has(topic)) {
      throw invalid(`Invalid topic query: unknown topic ${JSON.stringify(topic)}; topics are ${[...KNOWN_TOPICS].join(", ")}, each alone or as Topic:Key`);
    }
    topics.set(topic, [...(topics.get(topic) ?? []), key]);
  }
  return topics;
}

const ATOI = /^[+-]?[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Reads `index`: absent or empty gives undefined (only new writes); otherwise an integer as Go's
 * `strconv.Atoi` reads it, not negative.
 *
 * @throws a 400 refusal with the reference's text.
 */
export function parseEventIndex(value: string | null): number | undefined {
  if (value === null || value === "") return undefined;
  const quoted = JSON.stringify(value);
  if (!ATOI.test(value)) throw invalid(`Unable to parse index: strconv.Atoi: parsing ${quoted}: invalid syntax`);
  const index = BigInt(value);
  if (index > INT64_MAX || index < -INT64_MAX - 1n) throw invalid(`Unable to parse index: strconv.Atoi: parsing ${quoted}: value out of range`);
  if (index < 0n) throw invalid("Invalid index");
  return Number(index);
}

/**
 * One event of a frame. Its payload is presented and its JSON written, as UTF-8 bytes, when a
 * stream first sends it, once for every stream: a write nobody streams costs the buffer no more
 * than a look at its rows, and streams share the bytes (each sends slices of them).
 */
class BufferedEvent {
  #encoded: Buffer | undefined;

  constructor(
    readonly topic: TopicDefinition,
    readonly type: string,
    readonly key: string,
    readonly namespace: string,
    readonly filterKeys: readonly string[] | null,
    readonly index: number,
    /** The stored row, or what is known of a deleted one. */
    readonly row: Row,
    readonly deleted: boolean,
    /** The JSON's estimated size, for the buffer's byte bound. */
    readonly bytes: number,
  ) {}

  /** The event as the reference writes it (`Topic, Type, Key, Namespace, FilterKeys, Index, Payload`), in UTF-8. */
  get encoded(): Buffer {
    this.#encoded ??= Buffer.from(
      stringifyJson({
        Topic: this.topic.topic,
        Type: this.type,
        Key: this.key,
        Namespace: this.namespace,
        FilterKeys: this.filterKeys,
        Index: this.index,
        Payload: { [this.topic.topic]: this.deleted ? this.row : this.topic.present(this.row) },
      }),
      "utf8",
    );
    return this.#encoded;
  }
}

/** The events of one index. */
class Frame {
  #head: Buffer | undefined;

  constructor(
    readonly index: number,
    readonly events: readonly BufferedEvent[],
    /** The events' estimated JSON size, for the buffer's byte bound. */
    readonly bytes: number,
  ) {}

  /** What every stream sends of this frame before its events: `{"Index":N,"Events":[`. */
  get head(): Buffer {
    this.#head ??= Buffer.from(`{"Index":${this.index},"Events":[`, "utf8");
    return this.#head;
  }
}

/** The size from which a slice of an event's bytes is written as a view of them, not joined to others in a copy. */
const SHARED_SLICE_BYTES = 16 * 1024;

/** What goes between two events of a frame, and after its last one. */
const EVENT_SEPARATOR = Buffer.from(",");
const FRAME_END = Buffer.from("]}\n");

/** The bytes of an event besides its payload: field names, topic, type, keys. */
const EVENT_OVERHEAD_BYTES = 160;

/**
 * The size of `value` written as JSON, estimated in one pass without writing it (string escapes
 * and number digits are not counted exactly).
 */
export function estimateJsonBytes(value: unknown): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
      return 8;
    case "bigint":
      return 20;
    case "boolean":
      return 5;
    case "object": {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let bytes = 2;
        for (const item of value) bytes += estimateJsonBytes(item) + 1;
        return bytes;
      }
      const numberText = (value as { isLosslessNumber?: unknown; value?: unknown }).isLosslessNumber === true ? (value as { value: unknown }).value : undefined;
      if (typeof numberText === "string") return numberText.length;
      let bytes = 2;
      // `for…in` over a row's own fields (rows are plain objects), without the array `Object.entries` makes for each object.
      for (const key in value) if (Object.hasOwn(value, key)) bytes += key.length + 4 + estimateJsonBytes((value as Record<string, unknown>)[key]);
      return bytes;
    }
    default:
      return 0;
  }
}

/** A payload without the fields a row has for the agent's own use (named in lower case: `secretHash`, `parsed`). */
function publicFields(row: Row): Row {
  const keys = Object.keys(row);
  if (keys.every((key) => key.charCodeAt(0) >= 65 && key.charCodeAt(0) <= 90)) return row;
  return Object.fromEntries(keys.filter((key) => key.charCodeAt(0) >= 65 && key.charCodeAt(0) <= 90).map((key) => [key, row[key]]));
}

/** Where a stream writes: a response, or a test's stand-in. */
export interface EventSink {
  /** Writes text, or UTF-8 bytes the sink must not change (they are shared), to the client. */
  write(chunk: string | Uint8Array): void;
  /** The bytes written and not yet taken by the client's socket. */
  readonly pendingBytes: number;
  /** Calls `callback` once, when the pending bytes have been taken. */
  onDrain(callback: () => void): void;
  /** Ends the response once what is pending has been sent. */
  end(): void;
  /** Closes the connection now (a client that does not take the end of its stream). */
  destroy(): void;
}

/** What a stream asked for. */
export interface EventRequest {
  /** The topics and keys (see {@link parseEventTopics}). */
  readonly topics: TopicSelection;
  /** The namespace of the events, `*` for all (events without one, a node's, always pass). */
  readonly namespace: string;
  /**
   * Start at the buffer's frame of this index, or the first one after it (undefined: only new
   * writes), as the reference's `StartAtClosest`: 0 and an index older than the buffer start at its
   * oldest frame; an index past the newest frame starts at the newest, sent again.
   */
  readonly index: number | undefined;
  /** The caller's secret (empty: anonymous). */
  readonly secret: string;
}

/** The sizes of an {@link EventBroker}'s buffer and streams; each defaults to its constant. */
export interface EventBrokerOptions {
  /** {@link EVENT_HEARTBEAT_MS} by default. */
  readonly heartbeatMs?: number;
  /** {@link EVENT_BUFFER_WRITES} by default. */
  readonly bufferWrites?: number;
  /** {@link EVENT_BUFFER_BYTES} by default. */
  readonly bufferBytes?: number;
  /** {@link EVENT_QUEUE_BYTES} by default. */
  readonly queueBytes?: number;
  /** {@link EVENT_STREAMS_MAX} by default. */
  readonly maxStreams?: number;
}

/** The reference's words for a subscription the server ends (the client should subscribe again, with `index`). */
export const SUBSCRIPTION_CLOSED = "subscription closed by server, client should resubscribe";

/** The reference's words for a token that expired while its stream was open. */
export const TOKEN_EXPIRED = "ACL token expired";

/** The buffer of frames fed by the store, and the open streams. */
export class EventBroker {
  readonly #frames: Frame[] = [];
  #bytes = 0;
  /** The index of the newest frame that left the buffer (0: none has). */
  #evictedThrough = 0;
  /** The index of the latest write seen: a live stream starts after it. */
  #seenIndex: number;
  readonly #streams = new Set<EventStream>();
  readonly #unsubscribe: () => void;
  #pumpQueued = false;
  #closed = false;
  /** The sizes in use. */
  readonly limits: Required<EventBrokerOptions>;

  constructor(
    private readonly store: Store,
    private readonly acl: AccessControl,
    options: EventBrokerOptions = {},
    /** Epoch milliseconds now, on the agent's clock (tokens expire by it). */
    readonly now: () => number = Date.now,
  ) {
    this.limits = {
      heartbeatMs: options.heartbeatMs ?? EVENT_HEARTBEAT_MS,
      bufferWrites: options.bufferWrites ?? EVENT_BUFFER_WRITES,
      bufferBytes: options.bufferBytes ?? EVENT_BUFFER_BYTES,
      queueBytes: options.queueBytes ?? EVENT_QUEUE_BYTES,
      maxStreams: options.maxStreams ?? EVENT_STREAMS_MAX,
    };
    this.#seenIndex = store.index;
    // The nodes the agent registered as it started (the store's seed, written before the buffer
    // follows it) are in the buffer, as the reference's node registrations are in its own.
    const seeded = new Map([...store.tables.nodes.values()].filter((node) => node.ModifyIndex <= SEED_INDEX).map((node) => [node.ID, node]));
    if (seeded.size > 0) for (const frame of framesOf({ index: SEED_INDEX, changes: { nodes: seeded } }, 0)) this.#push(frame);
    this.#unsubscribe = store.subscribe((write) => this.#observe(write));
  }

  /** How many streams are open. */
  get streams(): number {
    return this.#streams.size;
  }

  /** The indexes of the frames in the buffer, oldest first. */
  get bufferedIndexes(): readonly number[] {
    return this.#frames.map((frame) => frame.index);
  }

  /** The bytes of events the buffer holds, as its byte bound counts them. */
  get bufferedBytes(): number {
    return this.#bytes;
  }

  /**
   * Checks a request's caller (a token that is not valid, or one that may read none of the topics
   * asked for in the namespace asked for, is refused), then that a stream more may be open, and
   * returns the stream to start.
   *
   * @throws a 403 refusal (`Permission denied`), or a busy refusal (`429`) when
   * {@link EventBrokerOptions.maxStreams} streams are open.
   */
  open(request: EventRequest): EventStream {
    const caller = this.acl.authenticate(request.secret);
    if (this.acl.enabled && request.secret !== "" && caller.token === undefined) throw denied();
    if (!caller.management && !TOPICS.some((definition) => selects(request.topics, definition.topic) && mayReadSomewhere(caller, definition, request.namespace))) throw denied();
    const { maxStreams } = this.limits;
    if (this.#streams.size >= maxStreams) throw busy(`Too many event streams: the agent serves at most ${maxStreams} at once; retry once one has ended`);
    return new EventStream(this, request, caller);
  }

  /**
   * Ends every stream (the agent is stopping) and stops following the store. As the reference's
   * server does when it stops, each connection is dropped, with no last line and no end of the
   * chunked body: its Go client reads `io.ErrUnexpectedEOF`, which its tests take for the end.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    for (const stream of [...this.#streams]) stream.drop();
  }

  /**
   * @internal A stream starts: where its cursor starts (the index it has gone past), or undefined
   * when the broker has closed. As the reference's `StartAtClosest`: the frame of `index` or the
   * first after it, the oldest for an index older than the buffer, the newest (again) for one past
   * it; nothing buffered, or no index: new writes.
   */
  attach(stream: EventStream, index: number | undefined): number | undefined {
    if (this.#closed) return undefined;
    this.#streams.add(stream);
    const newest = this.#frames.at(-1);
    if (index === undefined || newest === undefined) return this.#seenIndex;
    if (index > newest.index) return newest.index - 1;
    return Math.max(index - 1, this.#evictedThrough);
  }

  /** @internal A stream ended. */
  detach(stream: EventStream): void {
    this.#streams.delete(stream);
  }

  /** @internal Whether the frame of `index` has left the buffer. */
  evicted(index: number): boolean {
    return index <= this.#evictedThrough;
  }

  /** @internal The first frame after `cursor`: a frame, `missed` when frames after it have left the buffer, or undefined. */
  next(cursor: number): Frame | "missed" | undefined {
    if (cursor < this.#evictedThrough) return "missed";
    const frames = this.#frames;
    return frames[lowerBound(frames, frames.length, (frame) => (frame.index <= cursor ? -1 : 0))];
  }

  /** @internal The ACL state a stream's caller was resolved at. */
  aclIndex(): number {
    return this.store.tableIndex("acl_policy", "acl_token");
  }

  /** @internal Resolves a stream's caller again. */
  authenticate(secret: string): Caller {
    return this.acl.authenticate(secret);
  }

  /** @internal Whether ACLs are enforced. */
  get aclEnabled(): boolean {
    return this.acl.enabled;
  }

  /** A write applied: its frames into the buffer, then the streams are sent what they are due. */
  #observe(write: AppliedWrite): void {
    try {
      for (const frame of framesOf(write, this.#seenIndex)) this.#push(frame);
    } catch {
      // Never fail the write that is being applied (the store calls its listeners after the commit):
      // a write whose rows cannot be read as events is left out of the stream.
    }
    this.#seenIndex = Math.max(this.#seenIndex, write.index);
    if (this.#streams.size > 0 && !this.#pumpQueued) {
      // After the write's own work (the store calls its listeners inside the write).
      this.#pumpQueued = true;
      queueMicrotask(() => {
        this.#pumpQueued = false;
        for (const stream of [...this.#streams]) stream.pump();
      });
    }
  }

  #push(frame: Frame): void {
    const frames = this.#frames;
    frames.push(frame);
    this.#bytes += frame.bytes;
    while (frames.length > this.limits.bufferWrites || (this.#bytes > this.limits.bufferBytes && frames.length > 1)) {
      const oldest = frames.shift()!;
      this.#bytes -= oldest.bytes;
      this.#evictedThrough = oldest.index;
    }
  }
}

/** Whether `topics` selects any key of `topic`. */
function selects(topics: TopicSelection, topic: EventTopic): boolean {
  return topics.has(ALL) || topics.has(topic);
}

/** Whether the caller may read some events of a topic in `namespace` (`*`: in some namespace). */
function mayReadSomewhere(caller: Caller, definition: TopicDefinition, namespace: string): boolean {
  if (!definition.namespaced) return caller.permissions.nodeRead;
  return namespace === ALL ? caller.permissions.allowsAnywhere("read-job") : caller.permissions.allows(namespace, "read-job");
}

/**
 * The frames of a write: one event per changed row, tables in the topics' order. A row whose
 * `ModifyIndex` is not above `seenIndex` was written again unchanged (the scheduler puts a job back
 * as it was) and makes no event. A write that holds several (another agent's writes, caught up
 * with at once) is split by each row's `ModifyIndex`, so that each frame has its own index, as on
 * the agent that made them.
 */
function framesOf(write: AppliedWrite, seenIndex: number): Frame[] {
  const byIndex = new Map<number, BufferedEvent[]>();
  const changes = write.changes as Readonly<Record<string, ReadonlyMap<string, unknown> | undefined>>;
  for (const definition of TOPICS) {
    const rows = changes[definition.table];
    if (rows === undefined) continue;
    for (const [tableKey, stored] of rows) {
      let event: BufferedEvent | undefined;
      if (stored === undefined || stored === null) {
        if (definition.deleteType === undefined) continue;
        event = makeEvent(definition, definition.deleteType, definition.deleted(tableKey), true, write.index);
      } else {
        const row = stored as Row;
        const modified = row.ModifyIndex;
        const index = typeof modified === "number" && modified <= write.index ? modified : write.index;
        if (typeof modified === "number" && modified <= seenIndex) continue;
        event = makeEvent(definition, definition.putType, row, false, index);
      }
      const events = byIndex.get(event.index) ?? [];
      events.push(event);
      byIndex.set(event.index, events);
    }
  }
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, events]) => new Frame(index, events, events.reduce((sum, event) => sum + event.bytes, 0)));
}

function makeEvent(definition: TopicDefinition, type: string, row: Row, deleted: boolean, index: number): BufferedEvent {
  const namespace = definition.namespaced ? text(row.Namespace) : "";
  // Estimated on the row's own fields: what the payload shows of it, give or take the zero values presenting adds.
  return new BufferedEvent(definition, type, definition.key(row), namespace, definition.filterKeys(row), index, row, deleted, EVENT_OVERHEAD_BYTES + estimateJsonBytes(publicFields(row)));
}

/** A frame a stream has begun to send: the parts of its line, and how far it has got. */
interface FrameInProgress {
  readonly index: number;
  /** The frame's head, its selected events' shared bytes with separators, and its end. */
  readonly parts: readonly Buffer[];
  part: number;
  /** Bytes of `parts[part]` already written. */
  offset: number;
}

/** One open stream: its cursor in the buffer, its filter, its caller, its heartbeat. */
export class EventStream {
  #cursor = 0;
  /** The frame being sent, when its socket has not taken the whole of it yet. */
  #sending: FrameInProgress | undefined;
  #sink: EventSink | undefined;
  #caller: Caller;
  #aclIndex: number;
  /** Per namespace, whether the caller may read its events (cleared when the caller is resolved again). */
  readonly #readable = new Map<string, boolean>();
  #heartbeat: NodeJS.Timeout | undefined;
  #giveUp: NodeJS.Timeout | undefined;
  #waitingForDrain = false;
  #state: "new" | "open" | "ended" = "new";
  /** Per topic the stream selects, the keys it wants (`undefined`: every key). */
  readonly #keys = new Map<EventTopic, ReadonlySet<string> | undefined>();

  /** @internal Made by {@link EventBroker.open}. */
  constructor(
    private readonly broker: EventBroker,
    private readonly request: EventRequest,
    caller: Caller,
  ) {
    this.#caller = caller;
    this.#aclIndex = broker.aclIndex();
    for (const { topic } of TOPICS) {
      if (!selects(request.topics, topic)) continue;
      const keys = [...(request.topics.get(ALL) ?? []), ...(request.topics.get(topic) ?? [])];
      this.#keys.set(topic, keys.includes(ALL) ? undefined : new Set(keys));
    }
  }

  /** Starts sending to `sink`: the heartbeat at once, then the buffered frames after the request's index, then new ones. */
  start(sink: EventSink): void {
    if (this.#state !== "new") return;
    this.#sink = sink;
    const cursor = this.broker.attach(this, this.request.index);
    sink.write("{}\n");
    // The agent is stopping: dropped as every other stream.
    if (cursor === undefined) {
      this.drop();
      return;
    }
    this.#state = "open";
    this.#cursor = cursor;
    this.#heartbeat = setInterval(() => this.#beat(), this.broker.limits.heartbeatMs);
    this.#heartbeat.unref();
    this.pump();
  }

  /** The index of the last frame the stream has gone past (sent, or skipped by its filter). */
  get cursor(): number {
    return this.#cursor;
  }

  /**
   * @internal Sends the frames it is due while its socket takes them, never more than the queue's
   * bytes waiting there; cuts it off as soon as the frame it is due has left the buffer (a client
   * that stopped reading is not waited for).
   */
  pump(): void {
    const sink = this.#sink;
    if (this.#state !== "open" || sink === undefined) return;
    while (this.#state === "open") {
      if (!this.#checkCaller()) return;
      const sending = this.#sending;
      if (sending !== undefined) {
        if (this.broker.evicted(sending.index)) {
          this.cut(`${SUBSCRIPTION_CLOSED}: the client fell behind, and the events of index ${sending.index} have left the agent's buffer of ${this.broker.limits.bufferWrites} writes`);
          return;
        }
        if (!this.#send(sink, sending)) return;
        this.#sending = undefined;
        continue;
      }
      const frame = this.broker.next(this.#cursor);
      if (frame === undefined) return;
      if (frame === "missed") {
        this.cut(`${SUBSCRIPTION_CLOSED}: the client fell behind, and the events after index ${this.#cursor} have left the agent's buffer of ${this.broker.limits.bufferWrites} writes`);
        return;
      }
      const events = frame.events.filter((event) => this.#wants(event));
      // A frame with nothing for this stream is gone past at once, whether its socket is full or not.
      if (events.length > 0) {
        if (!this.#hasRoom(sink)) return;
        let parts: Buffer[];
        try {
          parts = [frame.head, ...events.flatMap((event, i) => (i === 0 ? [event.encoded] : [EVENT_SEPARATOR, event.encoded])), FRAME_END];
        } catch (error) {
          // A row that cannot be written (a bug) ends this stream, not the agent.
          this.cut(`${SUBSCRIPTION_CLOSED}: the events of index ${frame.index} could not be written: ${(error as Error).message}`);
          return;
        }
        this.#sending = { index: frame.index, parts, part: 0, offset: 0 };
      }
      this.#cursor = frame.index;
    }
  }

  /**
   * Whether fewer than the queue's bytes wait in the socket; if not, the stream is pumped again
   * when the socket has drained.
   */
  #hasRoom(sink: EventSink): boolean {
    if (this.#waitingForDrain) return false;
    if (sink.pendingBytes < this.broker.limits.queueBytes) return true;
    this.#waitingForDrain = true;
    sink.onDrain(() => {
      this.#waitingForDrain = false;
      this.pump();
    });
    return false;
  }

  /**
   * Writes what the socket has room for of a frame, as slices of the shared parts: a large slice
   * is written as it is (the socket keeps a view of the shared bytes, not a copy), small ones are
   * joined into one write so that a frame of many small events is not many writes. True once the
   * whole frame is written.
   */
  #send(sink: EventSink, sending: FrameInProgress): boolean {
    const small: Buffer[] = [];
    let smallBytes = 0;
    const flush = () => {
      if (small.length > 0) sink.write(small.length === 1 ? small[0]! : Buffer.concat(small, smallBytes));
      small.length = 0;
      smallBytes = 0;
    };
    while (sending.part < sending.parts.length) {
      const room = this.broker.limits.queueBytes - sink.pendingBytes - smallBytes;
      if (room <= 0) {
        flush();
        if (!this.#hasRoom(sink)) return false;
        continue;
      }
      const part = sending.parts[sending.part]!;
      const slice = part.subarray(sending.offset, sending.offset + room);
      sending.offset += slice.length;
      if (sending.offset === part.length) {
        sending.part++;
        sending.offset = 0;
      }
      if (slice.length < SHARED_SLICE_BYTES) {
        small.push(slice);
        smallBytes += slice.length;
      } else {
        flush();
        sink.write(slice);
      }
    }
    flush();
    return true;
  }

  #wants(event: BufferedEvent): boolean {
    const { topic } = event.topic;
    if (!this.#keys.has(topic)) return false;
    const keys = this.#keys.get(topic);
    if (keys !== undefined && !keys.has(event.key) && !(event.filterKeys?.some((key) => keys.has(key)) ?? false)) return false;
    if (event.namespace !== "" && this.request.namespace !== ALL && event.namespace !== this.request.namespace) return false;
    return this.#mayRead(event);
  }

  /** The ACL, per event: `read-job` in the event's namespace, `node:read` for a node. */
  #mayRead(event: BufferedEvent): boolean {
    const caller = this.#caller;
    if (caller.management) return true;
    if (!event.topic.namespaced) return caller.permissions.nodeRead;
    let readable = this.#readable.get(event.namespace);
    if (readable === undefined) {
      readable = caller.permissions.allows(event.namespace, "read-job");
      this.#readable.set(event.namespace, readable);
    }
    return readable;
  }

  /**
   * Resolves the caller again when ACLs changed or its token's time is up; a token that expired or
   * went away ends the stream with the reference's words. False when the stream was ended.
   */
  #checkCaller(): boolean {
    if (!this.broker.aclEnabled) return true;
    const token = this.#caller.token;
    const expired = token?.ExpirationTime != null && Date.parse(token.ExpirationTime) <= this.broker.now();
    const aclIndex = this.broker.aclIndex();
    if (!expired && aclIndex === this.#aclIndex) return true;
    const caller = this.broker.authenticate(this.request.secret);
    if (token !== undefined && caller.token === undefined) {
      this.cut(expired ? TOKEN_EXPIRED : SUBSCRIPTION_CLOSED);
      return false;
    }
    this.#caller = caller;
    this.#aclIndex = aclIndex;
    this.#readable.clear();
    return true;
  }

  #beat(): void {
    const sink = this.#sink;
    if (this.#state !== "open" || sink === undefined || !this.#checkCaller()) return;
    // A stream whose socket is full, or that is in the middle of a frame, is not idle: the
    // heartbeat would only add to the queue, or break the frame's line.
    if (this.#sending === undefined && sink.pendingBytes < this.broker.limits.queueBytes) sink.write("{}\n");
  }

  /**
   * Ends the stream with `reason` as its last line (the reference appends its error text to the
   * stream). A client that has not taken the rest within a heartbeat interval is disconnected. A
   * stream in the middle of a frame is disconnected at once: its line cannot be finished, and a
   * reason after half a frame would read as part of it.
   */
  cut(reason: string): void {
    const sink = this.#sink;
    if (this.#state === "ended" || sink === undefined) return;
    const midFrame = this.#sending !== undefined;
    this.#stop();
    if (midFrame) {
      sink.destroy();
      return;
    }
    sink.write(`${reason}\n`);
    sink.end();
    this.#giveUp = setTimeout(() => sink.destroy(), this.broker.limits.heartbeatMs);
    this.#giveUp.unref();
  }

  /** @internal Drops the connection at once: no last line, no end of the response (the agent is stopping). */
  drop(): void {
    const sink = this.#sink;
    if (this.#state === "ended" || sink === undefined) return;
    this.#stop();
    sink.destroy();
  }

  /** The client went away (or the response finished): the stream is forgotten. */
  close(): void {
    this.#stop();
    clearTimeout(this.#giveUp);
  }

  #stop(): void {
    this.#state = "ended";
    // The frame's parts are shared with the buffer: let them go with it.
    this.#sending = undefined;
    clearInterval(this.#heartbeat);
    this.broker.detach(this);
  }
}
