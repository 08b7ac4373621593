/**
 * Go's `time.ParseDuration` (src/time/format.go), which the reference uses for the `wait` query
 * parameter, ACL token TTLs and its configuration: a signed sequence of decimal numbers with units
 * (`300ms`, `1.5h`, `2h45m`), units `ns us µs μs ms s m h`, and `0` alone. A `time.Duration` is
 * int64 nanoseconds, so a duration is refused beyond {@link MAX_GO_DURATION_NS} (and below
 * {@link MIN_GO_DURATION_NS}), with Go's error texts.
 *
 * @module
 */

/** The longest Go duration, `2562047h47m16.854775807s`: `time.Duration` is int64 nanoseconds. */
export const MAX_GO_DURATION_NS = 2n ** 63n - 1n;

/** The most negative Go duration, `-2562047h47m16.854775808s` (parsed since Go 1.19). */
export const MIN_GO_DURATION_NS = -(2n ** 63n);

/** Why a duration is refused: Go's three error texts, and an overflow (which Go words as `invalid_duration`). */
export type GoDurationErrorCode = "invalid_duration" | "out_of_range" | "missing_unit" | "unknown_unit";

/** Go's error for a duration it cannot parse: `time: invalid duration "1.2.3s"`. */
export class GoDurationError extends Error {
  override readonly name = "GoDurationError";

  /**
   * @param code - why; `out_of_range` has Go's `invalid duration` text.
   * @param input - the text as given.
   * @param unit - the unit Go did not know (`unknown_unit` only).
   */
  constructor(
    readonly code: GoDurationErrorCode,
    readonly input: string,
    readonly unit = "",
  ) {
    super(
      code === "missing_unit"
        ? `time: missing unit in duration ${quote(input)}`
        : code === "unknown_unit"
          ? `time: unknown unit ${quote(unit)} in duration ${quote(input)}`
          : `time: invalid duration ${quote(input)}`,
    );
  }
}

const UNIT_NANOSECONDS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  "µs": 1_000n, // U+00B5, the micro sign
  "μs": 1_000n, // U+03BC, the Greek letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** 1<<63, the bound of Go's uint64 accumulators (it holds -(1<<63) before the sign is applied). */
const ACCUMULATOR_LIMIT = 2n ** 63n;

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= "0" && ch <= "9";

/**
 * Parses a Go duration into nanoseconds, as Go's `time.ParseDuration` does, digit by digit with
 * its overflow checks: `"9223372036854775807ns"` is the longest, `"9223372036854775808ns"` and
 * `"3000000h"` overflow; a fraction's digits beyond what int64 holds are dropped, not refused.
 *
 * @example parseGoDurationNs("1h30m") === 5_400_000_000_000n
 * @throws GoDurationError with Go's text when Go returns an error.
 */
export function parseGoDurationNs(input: string): bigint {
  let rest = input;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0n;
  if (rest === "") throw new GoDurationError("invalid_duration", input);
  let total = 0n;
  while (rest !== "") {
    if (!(rest[0] === "." || isDigit(rest[0]))) throw new GoDurationError("invalid_duration", input);
    // leadingInt: the whole part, refused once past 1<<63.
    let whole = 0n;
    let i = 0;
    for (; isDigit(rest[i]); i++) {
      if (whole > ACCUMULATOR_LIMIT / 10n) throw new GoDurationError("out_of_range", input);
      whole = whole * 10n + BigInt(rest.charCodeAt(i) - 48);
      if (whole > ACCUMULATOR_LIMIT) throw new GoDurationError("out_of_range", input);
    }
    const hasWhole = i > 0;
    rest = rest.slice(i);
    // leadingFraction: the digits after the point, which stop adding precision instead of overflowing.
    let fraction = 0n;
    let scale = 1;
    let hasFraction = false;
    if (rest.startsWith(".")) {
      rest = rest.slice(1);
      let overflow = false;
      for (i = 0; isDigit(rest[i]); i++) {
        if (overflow) continue;
        if (fraction > (ACCUMULATOR_LIMIT - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const next = fraction * 10n + BigInt(rest.charCodeAt(i) - 48);
        if (next > ACCUMULATOR_LIMIT) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      hasFraction = i > 0;
      rest = rest.slice(i);
    }
    // No digits on either side of the point (".s", "-.").
    if (!hasWhole && !hasFraction) throw new GoDurationError("invalid_duration", input);
    // The unit: everything up to the next number.
    for (i = 0; i < rest.length && !(rest[i] === "." || isDigit(rest[i])); i++);
    if (i === 0) throw new GoDurationError("missing_unit", input);
    const unitText = rest.slice(0, i);
    rest = rest.slice(i);
    const unit = UNIT_NANOSECONDS[unitText];
    if (unit === undefined) throw new GoDurationError("unknown_unit", input, unitText);
    if (whole > ACCUMULATOR_LIMIT / unit) throw new GoDurationError("out_of_range", input);
    let value = whole * unit;
    if (fraction > 0n) {
      // As Go: float64 keeps fractions of hours nanosecond-accurate, and the conversion truncates.
      value += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (value > ACCUMULATOR_LIMIT) throw new GoDurationError("out_of_range", input);
    }
    total += value;
    if (total > ACCUMULATOR_LIMIT) throw new GoDurationError("out_of_range", input);
  }
  if (negative) return -total;
  if (total > MAX_GO_DURATION_NS) throw new GoDurationError("out_of_range", input);
  return total;
}

/**
 * Parses a Go duration into milliseconds (fractional), or returns undefined when Go would return
 * an error (`"10"`: missing unit; `""`, `"1x"`, `"."`: invalid; past int64 nanoseconds).
 */
export function parseGoDuration(input: string): number | undefined {
  try {
    return Number(parseGoDurationNs(input)) / 1e6;
  } catch (error) {
    if (error instanceof GoDurationError) return undefined;
    throw error;
  }
}

/**
 * Go's `time.quote`, which its duration errors use: the text in double quotes, `"` and `\`
 * escaped, and each byte of a character outside printable ASCII written `\xHH` (of its UTF-8).
 */
function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of new TextEncoder().encode(ch)) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    } else {
      out += ch === '"' || ch === "\\" ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

/** Go's `time.Duration.String()`: `1h0m0s`, `1m30s`, `500ms`, `0s`. */
export function goDurationText(nanoseconds: number): string {
  if (nanoseconds === 0) return "0s";
  const sign = nanoseconds < 0 ? "-" : "";
  let rest = Math.abs(nanoseconds);
  if (rest < 1e9) {
    const [unit, size] = rest < 1e3 ? ["ns", 1] : rest < 1e6 ? ["µs", 1e3] : ["ms", 1e6];
    return `${sign}${Number((rest / size).toFixed(9))}${unit}`;
  }
  const hours = Math.floor(rest / 3600e9);
  rest -= hours * 3600e9;
  const minutes = Math.floor(rest / 60e9);
  rest -= minutes * 60e9;
  const seconds = Number((rest / 1e9).toFixed(9));
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
