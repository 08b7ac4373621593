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
 * The topics and the `topic` and `index` parameters are in `event-topics.ts`, the frames and their
 * shared bytes in `event-frames.ts`, one stream in `event-stream.ts`; this module holds the sizes
 * and the broker (the buffer and the open streams), and exports what the agent uses of the others.
 *
 * @module
 */
import { lowerBound } from "../state/sorted-rows.js";
import type { AppliedWrite, Store } from "../state/store.js";
import { ACL_TABLES, type AccessControl, type Caller } from "./acl.js";
import { busy, denied } from "../base/errors.js";
import { framesOf, type Frame } from "./event-frames.js";
import { EventStream, type EventRequest, type StreamBroker } from "./event-stream.js";
import { mayReadSomewhere, selects, TOPICS } from "./event-topics.js";

export { estimateJsonBytes } from "./event-frames.js";
export { EventStream, SUBSCRIPTION_CLOSED, TOKEN_EXPIRED, type EventRequest, type EventSink } from "./event-stream.js";
export { ALL, parseEventIndex, parseEventTopics, SILENT_TOPICS, type EventTopic, type TopicSelection } from "./event-topics.js";

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

/** The buffer of frames fed by the store, and the open streams. */
export class EventBroker implements StreamBroker {
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
    if (seeded.size > 0) for (const frame of framesOf({ index: SEED_INDEX, changes: { nodes: seeded }, messages: new Map([[SEED_INDEX, "NodeRegister"]]) }, 0)) this.#push(frame);
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
    return this.store.tableIndex(...ACL_TABLES);
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
