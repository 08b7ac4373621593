/**
 * One subscriber of the event stream: its cursor in the broker's shared buffer, its filter by
 * topic, key, namespace and the caller's ACL, and how it sends each frame as slices of the shared
 * bytes to its {@link EventSink} without ever having more than the queue's bytes waiting there.
 *
 * @module
 */
import type { Caller } from "./acl.js";
import { EVENT_SEPARATOR, FRAME_END, SHARED_SLICE_BYTES, type BufferedEvent, type Frame } from "./event-frames.js";
import { ALL, selects, TOPICS, type EventTopic, type TopicSelection } from "./event-topics.js";

/**
 * What a stream needs of the broker that feeds it (`events.ts`, which makes the streams): the
 * frames after a cursor, its limits, and the ACL's answers.
 */
export interface StreamBroker {
  readonly limits: { readonly heartbeatMs: number; readonly bufferWrites: number; readonly queueBytes: number };
  /** Whether ACLs are enforced. */
  readonly aclEnabled: boolean;
  /** Epoch milliseconds now, on the agent's clock. */
  now(): number;
  /** Starts feeding `stream` from `index`; the cursor of its first frame. */
  attach(stream: EventStream, index: number | undefined): number | undefined;
  detach(stream: EventStream): void;
  /** Whether the frames of `index` have left the buffer. */
  evicted(index: number): boolean;
  /** The frame at `cursor`, "missed" when it has left the buffer, undefined when none is there yet. */
  next(cursor: number): Frame | "missed" | undefined;
  /** The ACL's index: tokens and policies changed when it moved. */
  aclIndex(): number;
  authenticate(secret: string): Caller;
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

/** The reference's words for a subscription the server ends (the client should subscribe again, with `index`). */
export const SUBSCRIPTION_CLOSED = "subscription closed by server, client should resubscribe";

/** The reference's words for a token that expired while its stream was open. */
export const TOKEN_EXPIRED = "ACL token expired";

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

  /** @internal Made by the broker (`EventBroker.open` in events.ts). */
  constructor(
    private readonly broker: StreamBroker,
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
    this.#end(`${reason}\n`);
  }

  /**
   * @internal Ends the stream as the agent stops: at a frame's end, the response ended with no
   * last line, as the reference's endpoint closes its connection (its Go client then reads
   * `io.EOF`); a stream in the middle of a frame is disconnected.
   */
  drop(): void {
    this.#end(undefined);
  }

  /** Ends the response after `last` (none: nothing more), or disconnects a stream in the middle of a frame. */
  #end(last: string | undefined): void {
    const sink = this.#sink;
    if (this.#state === "ended" || sink === undefined) return;
    const midFrame = this.#sending !== undefined;
    this.#stop();
    if (midFrame) {
      sink.destroy();
      return;
    }
    if (last !== undefined) sink.write(last);
    sink.end();
    this.#giveUp = setTimeout(() => sink.destroy(), this.broker.limits.heartbeatMs);
    this.#giveUp.unref();
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
