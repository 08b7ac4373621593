/**
 * Golden scenarios: realistic job-list and deployment filters with independently derived
 * expectations (from reference/filter-semantics.md), in map mode and typed mode.
 *
 * Data and scenarios are read with a lossless JSON parse so that integers above 2^53
 * (SubmitTime, CreateTime…) stay exact: they become bigints, every other number a JS number.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileFilter, FilterEvaluationError, FilterSyntaxError, type CompileOptions, type Filter } from "../src/index.js";
import { parseJson } from "../src/json.js";
import { deploymentSchema, jobSchema } from "./golden/schemas.js";

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), "golden");

function readJson(path: string): unknown {
  return parseJson(readFileSync(path, "utf8"));
}

interface Item {
  readonly ID: string;
}

type Case =
  | { readonly filter: string; readonly expect: readonly string[] }
  | {
      readonly filter: string;
      readonly error: { readonly phase: "syntax" | "evaluation"; readonly code: string; readonly index?: number };
    };

interface Scenario {
  readonly description: string;
  readonly data: "jobs" | "deployments";
  readonly mode: "map" | "typed";
  readonly cases: readonly Case[];
}

const data: Record<Scenario["data"], Item[]> = {
  jobs: readJson(join(GOLDEN, "jobs.json")) as Item[],
  deployments: readJson(join(GOLDEN, "deployments.json")) as Item[],
};
const schemas = { jobs: jobSchema, deployments: deploymentSchema };

const files = readdirSync(join(GOLDEN, "scenarios"))
  .filter((name) => name.endsWith(".json"))
  .sort();

const scenarios = files.map((file) => [file, readJson(join(GOLDEN, "scenarios", file)) as Scenario] as const);

describe("golden data", () => {
  it("keeps integers above 2^53 exact", () => {
    const first = data.jobs[0] as unknown as { SubmitTime: unknown; Priority: unknown };
    expect(first.SubmitTime).toBe(1717000000123456789n);
    expect(first.Priority).toBe(50);
  });
});

// Every scenario runs on the filter compiled to JavaScript (the default) and on the closures.
// (tierUpAfter, internal: the generated code from the first evaluation.)
const paths = [["generated code", { tierUpAfter: 0 } as CompileOptions], ["closures", { codegen: false }]] as const;

describe.each(scenarios.flatMap(([file, scenario]) => paths.map(([path, pathOptions]) => [`${file} (${path})`, scenario, pathOptions] as const)))("%s", (_name, scenario, pathOptions) => {
  const items = data[scenario.data];
  const options = { ...pathOptions, ...(scenario.mode === "typed" ? { schema: schemas[scenario.data] } : {}) };

  it.each(scenario.cases.map((c) => [c.filter, c] as const))("%s", (_filter, c: Case) => {
    if ("expect" in c) {
      const filter = compileFilter<Item>(c.filter, options);
      expect(filter.filter(items).map((item) => item.ID)).toEqual(c.expect);
      return;
    }

    if (c.error.phase === "syntax") {
      let caught: unknown;
      try {
        compileFilter(c.filter, options);
      } catch (error) {
        caught = error;
      }
      expect(caught, "expected a FilterSyntaxError").toBeInstanceOf(FilterSyntaxError);
      expect((caught as FilterSyntaxError).code).toBe(c.error.code);
      return;
    }

    // Evaluation error: the filter must compile, then fail at the given object.
    let filter: Filter<Item> | undefined;
    let compileError: unknown;
    try {
      filter = compileFilter<Item>(c.filter, options);
    } catch (error) {
      compileError = error;
    }
    expect(compileError, "expected the filter to compile").toBeUndefined();
    let caught: unknown;
    let result: string[] | undefined;
    try {
      result = filter!.filter(items).map((item) => item.ID);
    } catch (error) {
      caught = error;
    }
    expect(result, "expected an evaluation error, got a result").toBeUndefined();
    expect(caught).toBeInstanceOf(FilterEvaluationError);
    const error = caught as FilterEvaluationError;
    expect({ code: error.code, index: error.index }).toEqual({ code: c.error.code, index: c.error.index });
  });
});
