/**
 * The names of a task group's allocations, `<job>.<group>[<index>]`, as the reference's reconciler
 * chooses them (`scheduler/reconciler/allocs.go`, `AllocNameIndex`): new allocations take the
 * lowest free indexes, canaries prefer the indexes of the allocations they will replace, and a
 * group scaled down stops its highest indexes first.
 *
 * @module
 */
import type { Allocation } from "../state/model.js";

/** An allocation's name: `<job>.<group>[<index>]` (`structs.AllocName`). */
export function allocName(job: string, group: string, index: number): string {
  return `${job}.${group}[${index}]`;
}

/** The index in an allocation's name (`Allocation.Index`); 0 when the name has none. */
export function allocIndex(alloc: Pick<Allocation, "Name">): number {
  const match = /\[(\d+)\]$/.exec(alloc.Name);
  return match === null ? 0 : Number(match[1]);
}

/** The names of one task group's allocations in use, to choose the next ones from (`AllocNameIndex`). */
export class AllocNameIndex {
  /** The indexes whose names are in use. */
  readonly #used = new Set<number>();

  /**
   * @param job - the job's ID.
   * @param group - the task group's name.
   * @param count - how many allocations the group wants.
   * @param existing - the allocations whose names are taken.
   */
  constructor(
    private readonly job: string,
    private readonly group: string,
    private readonly count: number,
    existing: Iterable<Allocation>,
  ) {
    for (const alloc of existing) this.#used.add(allocIndex(alloc));
  }

  #name(index: number): string {
    return allocName(this.job, this.group, index);
  }

  /** The next `n` names, the lowest free indexes below the count first, then from 0 again; marked in use. */
  next(n: number): string[] {
    const names: string[] = [];
    for (let index = 0; index < this.count && names.length < n; index++) {
      if (this.#used.has(index)) continue;
      this.#used.add(index);
      names.push(this.#name(index));
    }
    // The free indexes ran out: overlapping ones, from 0.
    for (let index = 0; names.length < n; index++) {
      this.#used.add(index);
      names.push(this.#name(index));
    }
    return names;
  }

  /**
   * The names of `n` canaries: first those of the allocations they will replace (`destructive`),
   * then free ones, then indexes past the count, none a name an `existing` canary has.
   */
  nextCanaries(n: number, existing: readonly Allocation[], destructive: readonly Allocation[]): string[] {
    const names: string[] = [];
    const taken = new Set(existing.map((alloc) => alloc.Name));
    const replaced = [...new Set(destructive.map(allocIndex))].filter((index) => index < this.count).sort((a, b) => a - b);
    for (const index of replaced) {
      if (names.length === n) return names;
      const name = this.#name(index);
      if (taken.has(name)) continue;
      this.#used.add(index);
      names.push(name);
    }
    for (let index = 0; index < this.count && names.length < n; index++) {
      const name = this.#name(index);
      if (this.#used.has(index) || taken.has(name)) continue;
      this.#used.add(index);
      names.push(name);
    }
    // Past the count, so that the canaries overlap no allocation that stays.
    for (let index = this.count; names.length < n; index++) names.push(this.#name(index));
    return names;
  }

  /** Frees the index of `alloc`'s name (`UnsetIndex`). */
  unset(alloc: Allocation): void {
    this.#used.delete(allocIndex(alloc));
  }

  /** The `n` highest names in use, no longer marked so (fewer when fewer are in use). */
  highest(n: number): Set<string> {
    const names = new Set<string>();
    for (const index of [...this.#used].sort((a, b) => b - a)) {
      if (names.size === n) break;
      this.#used.delete(index);
      names.add(this.#name(index));
    }
    return names;
  }
}
