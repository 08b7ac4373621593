/**
 * Sharing equal leaves between the rows of the in-memory store: a job's canonicalised defaults
 * (each task's `RestartPolicy`, `LogConfig` and `Resources`, each group's `EphemeralDisk`,
 * `ReschedulePolicy` and `Update`…), an evaluation's `FailedTGAllocs` metrics and
 * `QueuedAllocations`, a summary's counts, a job's `Datacenters` are equal in most rows, and each
 * row kept its own copy: some 3 KiB a job of the 9 KiB the store held (heap snapshot at 10,000
 * jobs of the benchmark's data). A *leaf* is a plain object or array whose values are all
 * primitives; the {@link LeafInterner} replaces each leaf of a stored row by the equal one it saw
 * first, and freezes it (a leaf is shared by rows of several jobs and namespaces: a change in
 * place would be a change to all of them, so it throws instead).
 *
 * What it remembers is bounded by bytes ({@link MAX_INTERN_BYTES}, two generations: when the
 * newer one is full the older is dropped), so that rows of unique leaves (a `Meta` with a commit
 * hash) cost it nothing lasting; a leaf whose key is longer than {@link MAX_LEAF_KEY_LENGTH} is
 * left alone.
 *
 * @module
 */

/** The most bytes of leaf keys the interner keeps, both generations together. */
export const MAX_INTERN_BYTES = 8 * 1024 * 1024;

/**
 * Leaves with a longer key (about their JSON length) are not shared: long leaves are rarely equal
 * (free text, a `Meta` of many keys), and their keys would fill the interner.
 */
export const MAX_LEAF_KEY_LENGTH = 512;

/** How deep the interner looks into a row; deeper objects are left alone (rows are bounded far above by the jobspec's depth limit). */
export const MAX_INTERN_DEPTH = 32;

/** Bytes counted for a remembered leaf besides its key's characters: the map's entry and the key string's header. */
const ENTRY_OVERHEAD_BYTES = 64;

/** Whether `value` is an array or an object of `Object.prototype` (rows' objects are; class instances, maps and dates are not shared). */
function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === Array.prototype;
}

/** A primitive's part of a leaf's key, unambiguous (a string's length first); undefined for one that cannot be keyed. */
function primitiveKey(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return `s${value.length}:${value}`;
    case "number":
      return Object.is(value, -0) ? "n-0" : `n${value}`;
    case "boolean":
      return value ? "t" : "f";
    case "bigint":
      return `b${value}`;
    case "undefined":
      return "u";
    case "object":
      return value === null ? "z" : undefined;
    default:
      return undefined;
  }
}

/** Shares equal leaves between rows (see the module's description). */
export class LeafInterner {
  #young = new Map<string, object>();
  #old = new Map<string, object>();
  #youngBytes = 0;

  /** @param maxBytes - the most bytes of keys kept, both generations together. */
  constructor(private readonly maxBytes = MAX_INTERN_BYTES) {}

  /** Leaves remembered now (both generations). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /**
   * Replaces each leaf under `row` (not `row` itself) by the equal leaf seen first, in place: a
   * reference to an equal value replaces a reference, so the row reads the same. Frozen objects
   * are not changed (their leaves stay theirs).
   */
  shareLeaves(row: object): void {
    if (isPlain(row)) this.#visit(row, 0, false);
  }

  /**
   * The leaf equal to `value` seen first (`value` itself the first time), or `value` when it is no
   * leaf or not `shareable` (a row). The key is built for leaves only: most of a row's primitives
   * are in objects that also hold objects (a job, a task), and those need none.
   */
  #visit(value: object, depth: number, shareable = true): object {
    const record = value as Record<string, unknown>;
    const names = Object.keys(value);
    let leaf = shareable;
    let frozen: boolean | undefined;
    for (const name of names) {
      const child = record[name];
      if (typeof child !== "object" || child === null) continue;
      leaf = false;
      // A frozen child is a shared leaf already (a row put again keeps most of its parts), or not the interner's to change.
      if (depth >= MAX_INTERN_DEPTH || Object.isFrozen(child) || !isPlain(child)) continue;
      const shared = this.#visit(child, depth + 1);
      if (shared !== child && !(frozen ??= Object.isFrozen(value))) record[name] = shared;
    }
    // A sparse array, or one with properties besides its elements, is left alone: Object.keys differs from its length.
    if (!leaf || (Array.isArray(value) && names.length !== value.length)) return value;
    let key = Array.isArray(value) ? "[" : "{";
    for (const name of names) {
      const part = primitiveKey(record[name]);
      if (part === undefined) return value;
      key += `${name.length}:${name}=${part},`;
      if (key.length > MAX_LEAF_KEY_LENGTH) return value;
    }
    return this.#share(key, value);
  }

  #share(key: string, leaf: object): object {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    const shared = old ?? Object.freeze(leaf);
    this.#young.set(key, shared);
    this.#youngBytes += key.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (this.#youngBytes > this.maxBytes / 2) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngBytes = 0;
    }
    return shared;
  }
}
