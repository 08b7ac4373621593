/**
 * The reference's periodic block (`PeriodicConfig` in `nomad/structs/structs.go`): its checks
 * (`Validate`) and its next launch (`Next`). Cron specs are read as the reference's parser
 * (gorhill/cronexpr) reads them: 5 fields (minute to day of week), 6 (a year after them) or 7
 * (seconds first, then the 6), and the `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`
 * and `@hourly` shorthands; croner computes the times, in the block's IANA time zone.
 *
 * @module
 */
import { Cron } from "croner";
import type { JsonObject } from "../state/model.js";

/** cronexpr's shorthands, as 5-field specs. */
const CRON_SHORTHANDS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/**
 * The longest cron spec read (the reference has no limit): a spec is a handful of fields, and a
 * bound keeps one registration's parsing small whatever a client sends.
 */
export const MAX_CRON_SPEC_LENGTH = 1024;

/**
 * The most specs one periodic block may list (`Specs`); the reference has no limit. A spec no
 * date matches costs a search of every year up to 2099 (a few milliseconds) each time the job's
 * next launch is computed, so the list is kept short.
 */
export const MAX_CRON_SPECS = 20;

/** The years cronexpr knows: a spec's search ends with them. */
const FIRST_CRON_YEAR = 1970;
const LAST_CRON_YEAR = 2099;
const CRON_YEARS = `${FIRST_CRON_YEAR}-${LAST_CRON_YEAR}`;

/** A cron spec that cannot be read, with the reason. */
class CronSpecError extends Error {}

/** A cron spec as croner's 7-part pattern (seconds to year), as cronexpr lays out its fields. */
function sevenPartPattern(spec: string): string {
  if (spec.length > MAX_CRON_SPEC_LENGTH) throw new CronSpecError(`longer than ${MAX_CRON_SPEC_LENGTH} characters`);
  const trimmed = spec.trim();
  const fields = (CRON_SHORTHANDS[trimmed] ?? trimmed).split(/\s+/).filter((field) => field !== "");
  let seven: string[];
  switch (fields.length) {
    case 5:
      seven = ["0", ...fields, "*"];
      break;
    case 6:
      seven = ["0", ...fields];
      break;
    case 7:
      seven = fields;
      break;
    default:
      throw new CronSpecError(fields.length < 5 ? "missing field(s)" : "too many fields");
  }
  // Any year is one of cronexpr's, 1970 to 2099: a spec no date matches (February 30) ends its search there, not in the year 10000.
  if (seven[6] === "*" || seven[6] === "?") seven[6] = CRON_YEARS;
  else checkYears(seven[6]!);
  return seven.join(" ");
}

/**
 * Refuses a year field that names a year cronexpr does not have (it reads 1970 to 2099 only): a
 * search for the next time would otherwise go on through years no date of the spec matches.
 */
function checkYears(field: string): void {
  for (const part of field.split(",")) {
    const range = part.split("/")[0]!;
    if (range === "*" || range === "?") continue;
    for (const year of range.split("-")) {
      const value = Number(year);
      if (!/^\d{1,4}$/.test(year) || value < FIRST_CRON_YEAR || value > LAST_CRON_YEAR) throw new CronSpecError("syntax error in year field");
    }
  }
}

/** The parsed spec, in a time zone (`undefined`: the machine's, Go's `Local`). */
function cronOf(spec: string, timeZone: string | undefined): Cron {
  try {
    // cronexpr matches a day when either the day of month or the day of week matches (when both are restricted).
    return new Cron(sevenPartPattern(spec), { mode: "7-part", timezone: timeZone, domAndDow: false, paused: true });
  } catch (error) {
    throw error instanceof CronSpecError ? error : new CronSpecError(error instanceof Error ? error.message : String(error));
  }
}

/** The time zone croner is given for a periodic block's `TimeZone` (Go's `time.LoadLocation` names). */
function zoneOf(periodic: JsonObject): string | undefined {
  const zone = typeof periodic.TimeZone === "string" ? periodic.TimeZone : "";
  if (zone === "" || zone === "UTC") return "UTC";
  return zone === "Local" ? undefined : zone;
}

/** Whether `zone` is a time zone Go's `time.LoadLocation` knows (the IANA names, `UTC`, `Local`, or none). */
function knownZone(zone: string): boolean {
  if (zone === "" || zone === "UTC" || zone === "Local") return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The block's cron specs: `Spec`, or the `Specs` list. */
function specsOf(periodic: JsonObject): string[] {
  if (typeof periodic.Spec === "string" && periodic.Spec !== "") return [periodic.Spec];
  return Array.isArray(periodic.Specs) ? periodic.Specs.filter((spec): spec is string => typeof spec === "string") : [];
}

/**
 * The reference's `PeriodicConfig.Validate`: the errors of an enabled periodic block, as the
 * items of a multi-error (none for a disabled one).
 */
export function validatePeriodic(periodic: JsonObject): string[] {
  if (periodic.Enabled === false) return [];
  const errors: string[] = [];
  const spec = typeof periodic.Spec === "string" ? periodic.Spec : "";
  const specs = Array.isArray(periodic.Specs) ? periodic.Specs : [];
  if (spec !== "" && specs.length > 0) errors.push("Only cron or crons may be used");
  if (spec === "" && specs.length === 0) errors.push("Must specify a spec");
  if (specs.length > MAX_CRON_SPECS) errors.push(`the mini-agent reads at most ${MAX_CRON_SPECS} cron specs for one job`);
  const zone = typeof periodic.TimeZone === "string" ? periodic.TimeZone : "";
  if (!knownZone(zone)) errors.push(`Invalid time zone ${JSON.stringify(zone)}: unknown time zone ${zone}`);
  switch (periodic.SpecType) {
    case "cron":
      for (const each of [spec, ...specs.slice(0, MAX_CRON_SPECS)]) {
        if (typeof each !== "string" || each === "") continue;
        try {
          cronOf(each, "UTC");
        } catch (error) {
          errors.push(`Invalid cron spec ${JSON.stringify(each)}: ${(error as Error).message}`);
        }
      }
      break;
    case "test":
      break;
    default:
      errors.push(`Unknown periodic specification type ${JSON.stringify(periodic.SpecType)}`);
  }
  return errors;
}

/**
 * The reference's `PeriodicConfig.Next`: the first launch strictly after `fromMs` (epoch
 * milliseconds), the earliest of its specs; undefined when there is none (a spec whose times
 * are all past, or one that cannot be read). The `test` spec type lists Unix seconds.
 */
export function nextLaunchMs(periodic: JsonObject, fromMs: number): number | undefined {
  if (periodic.SpecType === "test") {
    const times = String(periodic.Spec ?? "").split(",").map((each) => Number(each) * 1000);
    return times.find((time) => Number.isFinite(time) && time > fromMs);
  }
  let next: number | undefined;
  const zone = zoneOf(periodic);
  for (const spec of specsOf(periodic).slice(0, MAX_CRON_SPECS)) {
    let time: Date | null;
    try {
      time = cronOf(spec, zone).nextRun(new Date(fromMs));
    } catch {
      return undefined;
    }
    if (time !== null && (next === undefined || time.getTime() < next)) next = time.getTime();
  }
  return next;
}
