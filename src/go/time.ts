/**
 * Go's ways of writing a time: as its JSON codec writes a `time.Time`, and as `Time.String()`
 * prints one.
 *
 * @module
 */

/** A time (milliseconds since the epoch) as Go's JSON writes a `time.Time`: RFC 3339 in UTC, its fraction without trailing zeros. */
export function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits === "" ? "Z" : `.${digits}Z`));
}

/** A UTC time as Go's `Time.String()` prints it, to the second. */
export function goTimeString(ms: number): string {
  const iso = new Date(Math.round(ms / 1000) * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000 UTC`;
}
