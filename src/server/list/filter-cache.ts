/**
 * The agent's compiled filters, shared by every list endpoint.
 *
 * @module
 */
import { FilterSyntaxError } from "../../errors.js";
import type { Filter } from "../../evaluator/compile.js";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { compileFilter } from "../../filter.js";
import { invalid } from "../base/errors.js";
import { METRICS, type Metrics } from "../metrics/index.js";
import { BoundedCache } from "./bounded-cache.js";

/**
 * Compiled filters by endpoint and text, most recently used last, bounded by the memory they hold
 * (`Filter.memoryEstimate`), not by their number: a filter of a thousand large patterns weighs as
 * much as thousands of simple ones. A filter larger than the whole cache is compiled for each
 * request and never kept. Compilations are counted.
 */
export class FilterCache {
  readonly #entries: BoundedCache<Filter>;

  constructor(
    readonly metrics: Metrics,
    readonly maxBytes: number,
  ) {
    this.#entries = new BoundedCache(maxBytes);
    metrics.onCollect(() => this.#report());
  }

  #report(): void {
    this.metrics.gauge(METRICS.filterCacheBytes, this.#entries.bytes);
    this.metrics.gauge(METRICS.filterCacheEntries, this.#entries.size);
  }

  /** The memory the cached filters hold (estimated). */
  get bytes(): number {
    return this.#entries.bytes;
  }

  /** How many filters are cached. */
  get size(): number {
    return this.#entries.size;
  }

  get(source: string, endpoint: { readonly name: string; readonly schema: ObjectSchema }): Filter {
    const key = `${endpoint.name}\u0000${source}`;
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    let filter: Filter;
    try {
      filter = compileFilter(source, { schema: endpoint.schema });
    } catch (error) {
      if (error instanceof FilterSyntaxError) {
        this.metrics.counter(METRICS.filterCompileErrors, { endpoint: endpoint.name });
        throw invalid(`failed to create result paginator: failed to read filter expression: ${error.message}`);
      }
      throw error;
    }
    this.metrics.counter(METRICS.filterCompiled, { endpoint: endpoint.name });
    this.#entries.set(key, filter, filter.memoryEstimate);
    this.#report();
    return filter;
  }
}
