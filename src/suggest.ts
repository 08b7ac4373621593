/**
 * "Did you mean …?" for names: the known name nearest to a misspelt one.
 *
 * @module
 */

/** Names longer than this are only matched case-insensitively: no one misspells a name that long. */
const MAX_SUGGESTED_LENGTH = 256;

/**
 * Edit distance (insertions, deletions, substitutions, adjacent transpositions), row by row: a
 * transposition looks two rows back, so three rows are kept. A table of arrays per call made
 * `validate` of 6,000 misspelt fields take a second, mostly in the allocator.
 */
export function editDistance(a: string, b: string): number {
  const cols = b.length + 1;
  let twoBack = new Uint32Array(cols);
  let previous = Uint32Array.from({ length: cols }, (_, j) => j);
  let current = new Uint32Array(cols);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, twoBack[j - 2]! + 1);
      current[j] = best;
    }
    [twoBack, previous, current] = [previous, current, twoBack];
  }
  return previous[b.length]!;
}

/**
 * The candidate nearest to `name`: a case-insensitive match first, then the closest by edit
 * distance within a third of the name's length (at least 1). Undefined when nothing is close.
 */
export function suggestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === lower) return candidate;
    // The distance is at least the difference in length, and computing it takes the product of
    // the lengths: a name of 131,000 characters took a third of a second against a few fields.
    if (Math.abs(candidate.length - name.length) >= bestDistance || name.length > MAX_SUGGESTED_LENGTH || candidate.length > MAX_SUGGESTED_LENGTH) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
