/**
 * Go's order of strings: by UTF-8 bytes, which is code-point order. JavaScript compares UTF-16
 * code units, which differs for code points above U+FFFF.
 *
 * @module
 */

/** Orders strings as Go does (by UTF-8 bytes, which is code-point order). */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only surrogates (code points above U+FFFF) sort differently as UTF-16 and as code points.
    if (x >= 0xd800 && x <= 0xdfff) return y >= 0xe000 ? 1 : x - y;
    if (y >= 0xd800 && y <= 0xdfff) return x >= 0xe000 ? -1 : x - y;
    return x - y;
  }
  return a.length - b.length;
}
