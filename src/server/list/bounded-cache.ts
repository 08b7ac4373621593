/**
 * A cache bounded by the bytes its entries hold, not by their number: the least recently used
 * entries go first once the total passes the bound, and an entry larger than the whole bound is
 * never kept.
 *
 * @module
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  #bytes = 0;
  /** The key used last, already last in the order: a repeated hit (a client polling one page) is not moved again. */
  #newest: string | undefined;

  constructor(readonly maxBytes: number) {}

  /** The bytes the entries hold. */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many entries are kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key` (now the most recently used), or undefined. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (key !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#newest = key;
    }
    return entry.value;
  }

  /** Keeps `value`, which holds `bytes`, unless it alone is over the bound; evicts the oldest past it. */
  set(key: string, value: V, bytes: number): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= previous.bytes;
    }
    if (bytes > this.maxBytes) {
      if (key === this.#newest) this.#newest = undefined;
      return;
    }
    this.#entries.set(key, { value, bytes });
    this.#newest = key;
    this.#bytes += bytes;
    for (const [oldest, evicted] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= evicted.bytes;
    }
  }
}
