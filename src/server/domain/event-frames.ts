/**
 * The frames of the event stream: the events one write makes ({@link framesOf}), each written as
 * JSON once into bytes every stream shares, and the byte sizes and separators a stream sends them
 * with.
 *
 * @module
 */
import { stringifyJson } from "../../json.js";
import type { AppliedWrite, Rows } from "../state/store.js";
import { EVENT_TYPES, publicFields, text, TOPICS, type Row, type TopicDefinition, type TopicTable } from "./event-topics.js";

/** An event's row: one stored, presented when the event is first sent, or what is known of one deleted, sent as it is. */
export type EventRow = { readonly deleted: false; readonly stored: Rows[TopicTable] } | { readonly deleted: true; readonly known: Row };

/**
 * One event of a frame. Its payload is presented and its JSON written, as UTF-8 bytes, when a
 * stream first sends it, once for every stream: a write nobody streams costs the buffer no more
 * than a look at its rows, and streams share the bytes (each sends slices of them).
 */
export class BufferedEvent {
  #encoded: Buffer | undefined;

  constructor(
    readonly topic: TopicDefinition,
    readonly type: string,
    readonly key: string,
    readonly namespace: string,
    readonly filterKeys: readonly string[] | null,
    readonly index: number,
    readonly row: EventRow,
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
        Payload: { [this.topic.topic]: this.row.deleted ? this.row.known : this.topic.present(this.row.stored) },
      }),
      "utf8",
    );
    return this.#encoded;
  }
}

/** The events of one index. */
export class Frame {
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
export const SHARED_SLICE_BYTES = 16 * 1024;

/** What goes between two events of a frame. */
export const EVENT_SEPARATOR = Buffer.from(",");
/** What goes after a frame's last event: the end of its line. */
export const FRAME_END = Buffer.from("]}\n");

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

/**
 * The frames of a write: one event per changed row, tables in the topics' order, each of the type
 * its write's message gives (`EVENT_TYPES`; a write whose message gives none makes no event). A row whose
 * `ModifyIndex` is not above `seenIndex` was written again unchanged (the scheduler puts a job back
 * as it was) and makes no event. A write that holds several (another agent's writes, caught up
 * with at once) is split by each row's `ModifyIndex`, so that each frame has its own index, as on
 * the agent that made them.
 */
export function framesOf(write: AppliedWrite, seenIndex: number): Frame[] {
  const byIndex = new Map<number, BufferedEvent[]>();
  for (const definition of TOPICS) {
    const rows = write.changes[definition.table];
    if (rows === undefined) continue;
    for (const [tableKey, stored] of rows) {
      let event: BufferedEvent | undefined;
      if (stored === undefined || stored === null) {
        if (!definition.deletions) continue;
        const index = write.deletedAt?.get(`${definition.table} ${tableKey}`) ?? write.index;
        const type = typeOf(write, index);
        if (type === undefined) continue;
        event = deletedEvent(definition, type, definition.deleted(tableKey), index);
      } else {
        const modified = stored.ModifyIndex;
        const index = typeof modified === "number" && modified <= write.index ? modified : write.index;
        if (typeof modified === "number" && modified <= seenIndex) continue;
        const type = typeOf(write, index);
        if (type === undefined) continue;
        event = storedEvent(definition, type, stored, index);
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

/** The event type of the write at `index` of `write` (undefined: its message makes no event). */
function typeOf(write: AppliedWrite, index: number): string | undefined {
  const message = write.messages.get(index);
  return message === undefined ? undefined : EVENT_TYPES[message];
}

/** An event of `definition` for a row put at `index`, its size estimated for the buffer's byte bound. */
function storedEvent(definition: TopicDefinition, type: string, stored: Rows[TopicTable], index: number): BufferedEvent {
  const namespace = definition.namespaced && "Namespace" in stored ? stored.Namespace : "";
  // Estimated on the row's own fields: what the payload shows of it, give or take the zero values presenting adds.
  const bytes = EVENT_OVERHEAD_BYTES + estimateJsonBytes(publicFields(stored));
  return new BufferedEvent(definition, type, definition.key(stored), namespace, definition.filterKeys(stored), index, { deleted: false, stored }, bytes);
}

/** An event of `definition` for a row deleted at `index`: what is known of it, without filter keys (only jobs' and nodes' deletions make events, and theirs have none). */
function deletedEvent(definition: TopicDefinition, type: string, known: Row, index: number): BufferedEvent {
  const namespace = definition.namespaced ? text(known.Namespace) : "";
  return new BufferedEvent(definition, type, text(known.ID), namespace, null, index, { deleted: true, known }, EVENT_OVERHEAD_BYTES + estimateJsonBytes(publicFields(known)));
}
