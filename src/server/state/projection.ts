/**
 * Filter projections: for a list read again and again with filters on the same fields, each row's
 * filter target cut down to the fields those filters read, made once and kept side by side.
 *
 * Why: a filter never seen before is compiled for its request, then evaluated on every row of the
 * list. On 10,000 stored jobs that pass waited on memory: each job, its `Meta` and its values lie
 * wherever the scheduler made them in a heap of hundreds of megabytes, so each row cost several
 * cache misses (the same filter ran 2–3× faster over copies of the same jobs made one after the
 * other). Filters written by people and programs vary their literals far more than their fields
 * (`Meta.commit matches "^f6"`, then `"^a1"`), so the rows' values on those fields are worth
 * keeping together: a *projection* holds, for each row, an object with only the root fields the
 * filter reads, and down its paths only the keys it reads. The values at the ends of the paths are
 * the row's own, except short strings and short arrays of strings, which are copied beside the
 * projection ({@link MAX_COPIED_LENGTH}): a filter reads a string's characters, and the row's
 * lie elsewhere in the heap (one more wait on memory per value; measured on 10,000 jobs, the
 * copies took a new filter's request from 3.9–5.0 to 2.9–3.4 ms of the agent's CPU).
 *
 * A filter evaluated on a row's projection decides exactly as on the row: it reads nothing else
 * (each selector's path is in the projection, and a selector inside an `any`/`all` body keeps its
 * whole root field), objects on the way are plain objects as the row's are, a key is present in
 * the projection exactly when it is in the row, and a copied string or array holds what the row's
 * does (a property test holds it, errors and costs included). Paths through anything but a plain
 * object keep the value as it is.
 *
 * The projections of one list (its endpoint, namespace and prefix) for one set of paths are kept
 * for one version of the list's tables (the store's count of commits to them, seeds included): a
 * write to one of them makes them stale. They are made only when the same list and paths are asked
 * for a second time at the same version (a list written to all the time does not pay for
 * projections it throws away at once), and each row's only when a page reaches it and the caller
 * may see the row (rows the caller may not see are never touched for it). What is kept is bounded
 * by bytes ({@link PROJECTION_CACHE_BYTES}, least recently used first).
 *
 * @module
 */
import { forEachClause } from "../../ast-walk.js";
import type { Expression } from "../../ast.js";
import type { RowRange } from "./store.js";

/** The most bytes the projections of a store may hold (estimated, see {@link PROJECTED_ROW_BYTES}); the least recently used go first. */
export const PROJECTION_CACHE_BYTES = 32 * 1024 * 1024;

/** The most distinct path segments a filter's projection may have; a filter reading more is evaluated on its rows. */
export const MAX_PROJECTED_KEYS = 16;

/** Lists shorter than this are filtered on their rows: a projection would save less than it costs. */
export const MIN_PROJECTED_ROWS = 256;

/**
 * The longest string, and array of strings, copied into a projection; longer ones are shared with
 * the row (one wait on memory, then read in order, and their copies would cost the cache's bytes).
 */
export const MAX_COPIED_LENGTH = 256;

/**
 * The bytes estimated for each row of a projection: its slot, and per key an object's share and the
 * key's slot; per copied string its header and two bytes a character (an upper bound), per copied
 * array its header and a slot per item.
 */
const PROJECTED_ROW_BYTES = { slot: 8, object: 32, key: 16, string: 24, character: 2, array: 32, item: 8 } as const;

/** How many (list, paths, version) pairs seen once are remembered, waiting for a second request. */
const MAX_SEEN = 1_024;

/** A filter's paths as a tree of keys: a node that is `whole` keeps the value at its path as it is. */
interface PathTree {
  whole: boolean;
  readonly children: Map<string, PathTree>;
}

/** What a filter reads, as a tree of root-down keys, and its text (a cache key part); undefined when no projection is made for it. */
export interface FilterPaths {
  readonly tree: PathTree;
  readonly key: string;
  readonly keys: number;
}

/** A fresh path tree node. */
function node(): PathTree {
  return { whole: false, children: new Map() };
}

/**
 * The paths `expression` reads from its root: each selector's path, whole at its end; for a
 * selector inside a collection body, its first segment, whole (it may name a binding, or a root
 * field read in any way). Undefined when they hold more than {@link MAX_PROJECTED_KEYS} keys or a
 * key a plain object cannot hold as data (`__proto__`).
 */
export function filterPaths(expression: Expression): FilterPaths | undefined {
  const tree = node();
  let keys = 0;
  let usable = true;
  const add = (path: readonly string[]) => {
    let at = tree;
    for (const key of path) {
      if (key === "__proto__") usable = false;
      if (at.whole) return;
      let child = at.children.get(key);
      if (child === undefined) {
        at.children.set(key, (child = node()));
        keys++;
      }
      at = child;
    }
    at.whole = true;
    at.children.clear();
  };
  const outer = new Set<unknown>();
  forEachClause(expression, (clause) => {
    outer.add(clause);
    add(clause.selector.path);
  }, false);
  forEachClause(expression, (clause) => {
    if (!outer.has(clause)) add(clause.selector.path.slice(0, 1));
  });
  if (!usable || keys > MAX_PROJECTED_KEYS) return undefined;
  return { tree, key: describe(tree), keys };
}

/** The tree as text: its keys (JSON strings) in order, with `*` at a whole node. */
function describe(tree: PathTree): string {
  if (tree.whole) return "*";
  let text = "{";
  for (const [key, child] of [...tree.children].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) text += `${JSON.stringify(key)}:${describe(child)},`;
  return `${text}}`;
}

/** Whether `value` is a plain object (not an array, a map, a class instance): the only values a projection looks into. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** `value` cut down to the keys of `tree`, its short strings and arrays of strings copied (see the module's description). */
export function project(value: unknown, tree: PathTree): unknown {
  return new Projector().project(value, tree);
}

/**
 * Makes projections (see {@link project}) and estimates what their copies weigh: a cache keeps one,
 * and reads {@link Projector.copiedBytes} after each projection, so that a row costs no object
 * beyond its projection.
 */
class Projector {
  /** The bytes the copies of the latest projection are estimated at. */
  copiedBytes = 0;

  /** `value` cut down to the keys of `tree` (see {@link project}). */
  project(value: unknown, tree: PathTree): unknown {
    this.copiedBytes = 0;
    return this.#projected(value, tree);
  }

  #projected(value: unknown, tree: PathTree): unknown {
    if (tree.whole || !isPlainObject(value)) return this.#laidOut(value);
    const out: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
    for (const [key, child] of tree.children) {
      if (Object.hasOwn(value, key)) out[key] = this.#projected(value[key], child);
    }
    return out;
  }

  /** A value at the end of a path: a copy of a short string or of a short, dense array of strings; else the value itself. */
  #laidOut(value: unknown): unknown {
    if (typeof value === "string") return value.length <= MAX_COPIED_LENGTH ? this.#copiedString(value) : value;
    if (!Array.isArray(value) || value.length > MAX_COPIED_LENGTH || Object.getPrototypeOf(value) !== Array.prototype) return value;
    let characters = 0;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      // A hole, or anything but a string: kept as it is (a copy must read exactly as the row does).
      if (typeof item !== "string" || !Object.hasOwn(value, i)) return value;
      characters += item.length;
    }
    if (characters > MAX_COPIED_LENGTH * 4) return value;
    const copy = new Array<string>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = this.#laidOut(value[i]) as string;
    this.copiedBytes += PROJECTED_ROW_BYTES.array + value.length * PROJECTED_ROW_BYTES.item;
    return copy;
  }

  /**
   * A new string of `text`'s characters, made now (so beside the projection being made): adding a
   * character makes a new string, whose slice then copies again (V8 returns a string itself for
   * `text + ""` or `text.slice(0)`).
   */
  #copiedString(text: string): string {
    this.copiedBytes += PROJECTED_ROW_BYTES.string + text.length * PROJECTED_ROW_BYTES.character;
    return `${text} `.slice(0, -1);
  }
}

/** The projections of one list at one version of its tables: filled a row at a time, as pages reach the rows. */
interface Projections {
  readonly version: number;
  readonly rows: unknown[];
  bytes: number;
}

/** The projections of a store's lists (see the module's description). */
export class ProjectionCache {
  readonly #entries = new Map<string, Projections>();
  readonly #seen = new Map<string, number>();
  readonly #lists = new WeakMap<object, number>();
  #nextList = 0;
  readonly #paths = new WeakMap<Expression, FilterPaths | null>();
  #bytes = 0;
  /** Makes each projection, and says what its copies weigh. */
  readonly #projector = new Projector();

  /** @param maxBytes - the most bytes kept (estimated). */
  constructor(readonly maxBytes = PROJECTION_CACHE_BYTES) {}

  /** The bytes the projections hold now (estimated). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * What the filter of `expression` is evaluated on at each position of `rows` (the rows of
   * `list` in `namespace` with `prefix`, at `version` of its tables): the position's projection, made
   * from `target(row)` the first time; undefined when the filter is to be evaluated on the targets
   * themselves (first request, short list, too many paths).
   */
  targets<Row>(
    list: object,
    namespace: string,
    prefix: string,
    expression: Expression,
    rows: RowRange<Row>,
    version: number,
    target: (row: Row) => unknown,
  ): ((position: number, row: Row) => unknown) | undefined {
    if (rows.size < MIN_PROJECTED_ROWS) return undefined;
    let paths = this.#paths.get(expression);
    if (paths === undefined) this.#paths.set(expression, (paths = filterPaths(expression) ?? null));
    if (paths === null) return undefined;
    let id = this.#lists.get(list);
    if (id === undefined) this.#lists.set(list, (id = ++this.#nextList));
    const key = `${id}\u0000${namespace}\u0000${prefix}\u0000${paths.key}`;
    let entry = this.#entries.get(key);
    if (entry !== undefined && (entry.version !== version || entry.rows.length !== rows.size)) {
      this.#drop(key, entry);
      entry = undefined;
    }
    if (entry === undefined) {
      if (this.#seen.get(key) !== version) {
        if (this.#seen.size >= MAX_SEEN) this.#seen.clear();
        this.#seen.set(key, version);
        return undefined;
      }
      this.#seen.delete(key);
      const bytes = rows.size * (PROJECTED_ROW_BYTES.slot + PROJECTED_ROW_BYTES.object + paths.keys * PROJECTED_ROW_BYTES.key);
      if (bytes > this.maxBytes) return undefined;
      entry = { version, rows: new Array<unknown>(rows.size).fill(undefined), bytes };
      this.#entries.set(key, entry);
      this.#bytes += bytes;
      this.#evict();
    } else {
      // The most recently used last.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    const kept = entry;
    const tree = paths.tree;
    const projector = this.#projector;
    return (position, row) => {
      let projection = kept.rows[position];
      if (projection === undefined) {
        projection = kept.rows[position] = projector.project(target(row), tree);
        if (projector.copiedBytes > 0) this.#grow(key, kept, projector.copiedBytes);
      }
      return projection;
    };
  }

  /** Counts `bytes` more for `entry` (the most recently used), letting the least recently used go past the bound, itself last. */
  #grow(key: string, entry: Projections, bytes: number): void {
    if (this.#entries.get(key) !== entry) return;
    entry.bytes += bytes;
    this.#bytes += bytes;
    this.#evict();
  }

  /** Drops the least recently used projections while the bytes kept are past the bound. */
  #evict(): void {
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#drop(oldest, old);
    }
  }

  #drop(key: string, entry: Projections): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
