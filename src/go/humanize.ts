/**
 * go-humanize's sizes, as the reference words them in messages (`humanize.Bytes`: SI units,
 * base 1000).
 *
 * @module
 */

const SI_SIZES = ["B", "kB", "MB", "GB", "TB", "PB", "EB"] as const;

/**
 * A byte count as `humanize.Bytes` writes it: below 10 bytes as is (`"7 B"`), otherwise in the
 * largest unit it reaches, rounded to a tenth, one decimal below 10 (`"1.0 MB"`, `"12 kB"`).
 *
 * @example
 * humanBytes(1_048_576) // "1.0 MB"
 */
export function humanBytes(bytes: number): string {
  if (bytes < 10) return `${bytes} B`;
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1000)), SI_SIZES.length - 1);
  const value = Math.floor((bytes / 1000 ** exponent) * 10 + 0.5) / 10;
  return value < 10 ? `${value.toFixed(1)} ${SI_SIZES[exponent]}` : `${value.toFixed(0)} ${SI_SIZES[exponent]}`;
}
