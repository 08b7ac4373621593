/**
 * The benchmark's filters, over the job list items of bench/data.ts: each as bexpr source, as the hand-written JavaScript it stands for (the
 * limit), and as the peers write it where they can (@marcbachmann/cel-js, filtrex).
 */
import type { jobListItems } from "./data.js";

export type Job = ReturnType<typeof jobListItems>[number];

export interface Case {
  readonly name: string;
  readonly label: string;
  readonly filter: string;
  readonly handWritten: (job: Job) => boolean;
  /** The same filter in CEL (cel-js); undefined where it cannot be written. */
  readonly cel: string | undefined;
  /** The same filter in filtrex (no collections; `not Stop` for `not Stop == true`). */
  readonly filtrex: string | undefined;
}

export const CASES: readonly Case[] = [
  {
    name: "simple",
    label: "S",
    filter: 'Status == "running"',
    handWritten: (job) => job.Status === "running",
    cel: 'Status == "running"',
    filtrex: 'Status == "running"',
  },
  {
    name: "medium",
    label: "M",
    filter: '"dc1" in Datacenters and Priority == 50 and not Stop == true',
    handWritten: (job) => job.Datacenters.includes("dc1") && job.Priority === 50 && !(job.Stop === true),
    cel: '"dc1" in Datacenters && Priority == 50 && !(Stop == true)',
    filtrex: '("dc1") in Datacenters and Priority == 50 and not Stop',
  },
  {
    name: "complex",
    label: "C",
    filter:
      '(Status == "running" or Status == "pending") and Namespace == "default" and Name matches "^(web|api)-" and ' +
      '"app" in JobSummary.Summary and JobSummary.Summary.app.Running == 2 and "dc1" in Datacenters and not Stop == true and ' +
      'Type != "batch" and Meta.owner == "team-a"',
    handWritten: (job) =>
      (job.Status === "running" || job.Status === "pending") &&
      job.Namespace === "default" &&
      /^(web|api)-/.test(job.Name) &&
      job.JobSummary.Summary["app"]?.Running === 2 &&
      job.Datacenters.includes("dc1") &&
      !(job.Stop === true) &&
      job.Type !== "batch" &&
      job.Meta["owner"] === "team-a",
    cel:
      '(Status == "running" || Status == "pending") && Namespace == "default" && Name.matches("^(web|api)-") && ' +
      '"app" in JobSummary.Summary && JobSummary.Summary.app.Running == 2 && "dc1" in Datacenters && !(Stop == true) && Type != "batch" && ' +
      '"owner" in Meta && Meta.owner == "team-a"',
    filtrex:
      '(Status == "running" or Status == "pending") and Namespace == "default" and Name ~= "^(web|api)-" and ' +
      "Running of (app of (Summary of JobSummary)) == 2 and (\"dc1\") in Datacenters and not Stop and " +
      'Type != "batch" and owner of Meta == "team-a"',
  },
  {
    name: "collection",
    label: "any + matches",
    filter: '(any Datacenters as dc { dc matches "^(dc1|dc2)$" }) and (all Meta as k, v { v != "" })',
    handWritten: (job) => job.Datacenters.some((dc) => /^(dc1|dc2)$/.test(dc)) && Object.values(job.Meta).every((v) => v !== ""),
    cel: 'Datacenters.exists(dc, dc.matches("^(dc1|dc2)$")) && Meta.all(k, Meta[k] != "")',
    filtrex: undefined,
  },
];

/** A 1 KB filter, for compile time: twenty clauses of two comparisons, or-ed. */
export function kilobyteFilter(): string {
  const clauses: string[] = [];
  for (let i = 0; clauses.join(" or ").length < 1000; i++) clauses.push(`(Name == "job-${i}" and Meta.team == "t${i}")`);
  return clauses.join(" or ");
}

/**
 * The `i`-th of many distinct filters of `filter`'s shape: its last string literal gets `-i`
 * appended, so that no cache of compiled filters (by source text) can answer, as for filters users
 * type once.
 */
export function distinctVariant(filter: string, i: number): string {
  const last = filter.lastIndexOf('"');
  return last < 0 ? `${filter} or Priority == ${i}` : `${filter.slice(0, last)}-${i}${filter.slice(last)}`;
}
