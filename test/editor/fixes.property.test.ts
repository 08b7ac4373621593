/**
 * Quick fixes as data: a diagnostic with an obvious repair carries it as edits, and applying it
 * leaves a filter with one problem fewer. Filters of the job schema are built from clauses, each
 * with the mistakes people make in it, and one mistake is put in at a random place: `validate`
 * finds it, offers a fix, and the fixed filter is valid again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyFix, fixAll, schemas, validate } from "../../src/index.js";

/** A clause as it should be written, and as it is mistyped (each mistake one problem, with a fix). */
interface Slot {
  readonly good: string;
  readonly bad: readonly string[];
}

const CLAUSES: readonly Slot[] = [
  { good: 'Status == "running"', bad: ['Status = "running"', 'Status === "running"', 'status == "running"', 'Stauts == "running"'] },
  { good: 'Status != "dead"', bad: ['Status !== "dead"', 'STatus != "dead"'] },
  { good: 'Name == "web-api"', bad: ["Name == web-api"] },
  { good: "Stop == false", bad: ["!Stop", "not Stop"] },
  { good: "Stop == true", bad: ["Stop"] },
  { good: '"dc1" in Datacenters', bad: ['"dc1" in datacenters'] },
  { good: 'Meta["k8s-ns"] == "prod"', bad: ['Meta.k8s-ns == "prod"'] },
  { good: "Meta is nil", bad: ["Meta is null", "Meta is NULL"] },
  { good: "Meta is not empty", bad: ["Meta is NOT empty"] },
  { good: "not (Stop == true)", bad: ["NOT (Stop == true)", "Not (Stop == true)"] },
  { good: "not Priority == 5", bad: ["NOT Priority == 5"] },
  { good: "ID == `/web-api`", bad: ['ID == "/web-api"'] },
];

const JOINERS: readonly Slot[] = [
  { good: " and ", bad: [" AND ", " && ", "&&"] },
  { good: " or ", bad: [" OR ", " || "] },
];

/** A filter: clauses joined, the whole maybe in parentheses (whose `)` may be forgotten). */
const filterWithOneMistake = fc
  .record({
    clauses: fc.array(fc.constantFrom(...CLAUSES), { minLength: 1, maxLength: 4 }),
    joiners: fc.array(fc.constantFrom(...JOINERS), { minLength: 3, maxLength: 3 }),
    grouped: fc.boolean(),
    where: fc.nat(),
    which: fc.nat(),
  })
  .map(({ clauses, joiners, grouped, where, which }) => {
    // The slots in order: clause, joiner, clause, …, and the closing parenthesis.
    const slots: Slot[] = [];
    clauses.forEach((clause, i) => {
      if (i > 0) slots.push(joiners[i - 1]!);
      slots.push(clause);
    });
    if (grouped) slots.push({ good: ")", bad: [""] });
    const mistaken = where % slots.length;
    const text = slots.map((slot, i) => (i === mistaken ? slot.bad[which % slot.bad.length]! : slot.good)).join("");
    const good = slots.map((slot) => slot.good).join("");
    return { good: grouped ? `(${good}` : good, bad: grouped ? `(${text}` : text };
  })
  // A mistaken slot without a mistake (a clause with none) leaves nothing to fix.
  .filter(({ good, bad }) => good !== bad);

describe("quick fixes", () => {
  it("each leave fewer problems, and one makes a filter with one mistake whole again", () => {
    fc.assert(
      fc.property(filterWithOneMistake, ({ good, bad }) => {
        expect(validate(good, { schema: schemas.job })).toEqual([]);
        const problems = validate(bad, { schema: schemas.job });
        expect(problems.length, bad).toBeGreaterThan(0);
        const fixable = problems.filter((problem) => problem.fixes !== undefined);
        expect(fixable.length, `${bad}: ${problems.map((p) => p.code).join(", ")}`).toBeGreaterThan(0);
        // Every fix leaves fewer problems (a mistake the parser's recovery reports twice goes with
        // both reports), and one of them leaves none: the filter is whole again.
        const left = fixable.flatMap((problem) => problem.fixes!.map((fix) => ({ fixed: applyFix(bad, fix), title: fix.title })));
        for (const { fixed, title } of left) {
          expect(validate(fixed, { schema: schemas.job }).length, `${bad} → ${fixed} (${title})`).toBeLessThan(problems.length);
        }
        expect(left.some(({ fixed }) => validate(fixed, { schema: schemas.job }).length === 0), `${bad} → ${left.map(({ fixed }) => fixed).join(" | ")}`).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("close a string left open at the end, before the parentheses it swallowed", () => {
    fc.assert(
      fc.property(filterWithOneMistake, fc.boolean(), ({ good }, grouped) => {
        const whole = grouped ? `(${good} and Name == "x")` : `${good} and Name == "x"`;
        const open = whole.replace(/"(\)?)$/, "$1");
        // In a group, the ")" the string swallowed is also reported missing: the one fix mends both.
        const problem = validate(open, { schema: schemas.job }).find((found) => found.code === "unterminated_string");
        expect(applyFix(open, problem!.fixes![0]!)).toBe(whole);
        expect(validate(whole, { schema: schemas.job })).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['Status = "running"', 'Status == "running"'],
    ['Status !== "x"', 'Status != "x"'],
    ['Status == "a" AND Stop == false', 'Status == "a" and Stop == false'],
    ['Status == "a"&&Stop == false', 'Status == "a" and Stop == false'],
    ["!Stop", "Stop == false"],
    ["not Stop", "Stop == false"],
    ["Stop", "Stop == true"],
    ['Meta.k8s-ns == "x"', 'Meta["k8s-ns"] == "x"'],
    ["Name == my-job", 'Name == "my-job"'],
    ["Meta is null", "Meta is nil"],
    ['Status == "running', 'Status == "running"'],
    ['(Status == "a"', '(Status == "a")'],
    ['Stauts == "running"', 'Status == "running"'],
    ['status == "running"', 'Status == "running"'],
    ['TaskGroups[0].Name == "g"', 'TaskGroups.0.Name == "g"'],
    ["NOT Priority == 5", "not Priority == 5"],
    ["NOT (Stop == true)", "not (Stop == true)"],
    ["NOT Stop", "not Stop"],
    ['ID == "/web-api"', "ID == `/web-api`"],
  ])("fixes %j as %j", (bad, good) => {
    const [problem] = validate(bad, { schema: schemas.job });
    expect(problem?.fixes?.[0]).toBeDefined();
    expect(applyFix(bad, problem!.fixes![0]!)).toBe(good);
  });

  it.each([
    ['status = "running" AND !Stop', 'Status == "running" and Stop == false'],
    // One problem before the OR fix (the parser stops reading at OR) and one after (at NOT): still progress.
    ["Priority == 2 OR NOT (Stop == true)", "Priority == 2 or not (Stop == true)"],
    ['Priority == 1 AND Stop == false OR Type == "batch"', 'Priority == 1 and Stop == false or Type == "batch"'],
  ])("fixAll makes %j whole: %j", (bad, good) => {
    expect(fixAll(bad, { schema: schemas.job })).toMatchObject({ source: good, diagnostics: [] });
  });
});
