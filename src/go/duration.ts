/**
 * Go's `time.ParseDuration`, which the reference uses for the `wait` query parameter: a signed
 * sequence of decimal numbers with units (`300ms`, `1.5h`, `2h45m`), units `ns us µs μs ms s m h`,
 * and `0` alone.
 *
 * @module
 */

const UNIT_NANOSECONDS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  "µs": 1e3,
  "μs": 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const PART = /^([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)?/;

/**
 * Parses a Go duration into milliseconds (fractional), or returns undefined when Go would return
 * an error (`"10"`: missing unit; `""`, `"1x"`, `"."`: invalid; overflow of int64 nanoseconds).
 */
export function parseGoDuration(input: string): number | undefined {
  let rest = input;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let nanoseconds = 0;
  while (rest !== "") {
    const match = PART.exec(rest);
    const [whole, number, unit] = match ?? [];
    // A number needs a digit on one side of the point, and every number needs a unit.
    if (whole === undefined || number === undefined || !/[0-9]/.test(number) || unit === undefined) return undefined;
    nanoseconds += Number(number) * UNIT_NANOSECONDS[unit]!;
    rest = rest.slice(whole.length);
  }
  // Go stores durations as int64 nanoseconds.
  if (nanoseconds > 9_223_372_036_854_775_807) return undefined;
  return (negative ? -nanoseconds : nanoseconds) / 1e6;
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
