import { describe, expect, it } from "vitest";
import { bexprDiagnostics, setBexprContext } from "../../src/codemirror/index.js";
import { applyFix, fixAll, schemas, validate } from "../../src/index.js";
import { StateView, stateOf } from "./support.js";

/** Filters with every kind of problem the README lists, and some with several. */
const FILTERS = [
  "Name == my-job",
  'Status == "running" AND Stop == false',
  "Priority >= 50",
  'Status == "running',
  'Meta["owner" == "x"',
  '(Status == "running"',
  'Stauts == "running"',
  'Name matches "web-("',
  'Status == null or Priority matches "5"',
  'status = "running" AND !Stop',
  'Path == "/v1/jobs" and "/dc1" in Datacenters',
  "",
];

describe("lint diagnostics", () => {
  it.each(FILTERS)("are validate's for %j, one for one: range, severity, message and code", (doc) => {
    const expected = validate(doc, { schema: schemas.job });
    const diagnostics = bexprDiagnostics(stateOf(doc, { schema: schemas.job }));
    expect(diagnostics.map(({ from, to, severity, source }) => ({ from, to, severity, source }))).toEqual(
      expected.map((d) => ({ from: d.span.start, to: d.span.end, severity: d.severity, source: `bexpr(${d.code})` })),
    );
    diagnostics.forEach((diagnostic, i) => expect(diagnostic.message.startsWith(expected[i]!.message)).toBe(true));
    expect(diagnostics.map((d) => d.actions?.map((action) => action.name))).toEqual(expected.map((d) => (d.fixes ?? []).map((fix) => fix.title)));
  });

  it("add the suggestion on a line of its own, as the language server does", () => {
    const [unknown] = bexprDiagnostics(stateOf('Stauts == "running"', { schema: schemas.job }));
    expect(unknown?.message).toBe('the object has no field "Stauts"\nhint: did you mean "Status"?');
    const [mismatch] = bexprDiagnostics(stateOf("(Status == 1"));
    expect(mismatch?.message).toBe(validate("(Status == 1")[0]!.message + '\nhint: add the missing ")"');
  });

  it("check against the schema of the state, which setBexprContext changes", () => {
    const codes = (state: ReturnType<typeof stateOf>) => bexprDiagnostics(state).map((d) => d.source);
    const untyped = stateOf("Stauts == 1");
    expect(codes(untyped)).toEqual([]);
    const typed = untyped.update({ effects: setBexprContext({ schema: schemas.job }) }).state;
    expect(codes(typed)).toEqual(["bexpr(unknown_field)"]);
    expect(codes(typed.update({ effects: setBexprContext({ schema: undefined }) }).state)).toEqual([]);
    // Samples alone leave the schema as it was.
    expect(codes(typed.update({ effects: setBexprContext({ samples: [] }) }).state)).toEqual(["bexpr(unknown_field)"]);
  });

  it("mark a value in JSON-pointer form as a warning, with the backticks first among its actions", () => {
    const [warning] = bexprDiagnostics(stateOf('Path == "/v1/jobs"'));
    expect(warning).toMatchObject({ from: 8, to: 18, severity: "warning", source: "bexpr(pointer_literal)" });
    expect(warning!.actions!.map((action) => action.name)).toEqual(["compare with the text as written: `/v1/jobs`", 'compare with "v1/jobs", as now: "v1/jobs"']);
    const view = new StateView(stateOf('Path == "/v1/jobs"'));
    warning!.actions![0]!.apply(view.view, warning!.from, warning!.to);
    expect(view.state.doc.toString()).toBe("Path == `/v1/jobs`");
    expect(bexprDiagnostics(view.state)).toEqual([]);
  });

  it("pass the limits on to validate", () => {
    expect(bexprDiagnostics(stateOf("Status == 1"), { maxSourceLength: 5 }).map((d) => d.source)).toEqual(["bexpr(source_too_long)"]);
  });
});

describe("lint actions", () => {
  it.each(FILTERS.filter((doc) => validate(doc, { schema: schemas.job }).some((d) => d.fixes !== undefined)))(
    "apply each fix of %j through a transaction, giving applyFix's text",
    (doc) => {
      const state = stateOf(doc, { schema: schemas.job });
      const expected = validate(doc, { schema: schemas.job });
      bexprDiagnostics(state).forEach((diagnostic, i) => {
        diagnostic.actions?.forEach((action, j) => {
          const view = new StateView(state);
          action.apply(view.view, diagnostic.from, diagnostic.to);
          expect(view.state.doc.toString()).toBe(applyFix(doc, expected[i]!.fixes![j]!));
        });
      });
    },
  );

  it("move with the diagnostic when text was inserted before it since the check", () => {
    const doc = "Status == running AND Stop == false";
    const state = stateOf(doc);
    const [and] = bexprDiagnostics(state).filter((d) => d.source === "bexpr(unexpected_token)");
    // What CodeMirror does: the edit maps the diagnostic, and the action gets its new position.
    const edited = state.update({ changes: [{ from: 0, insert: "(" }, { from: doc.length, insert: ")" }] });
    const view = new StateView(edited.state);
    and!.actions![0]!.apply(view.view, edited.changes.mapPos(and!.from), edited.changes.mapPos(and!.to));
    expect(view.state.doc.toString()).toBe("(Status == running and Stop == false)");
  });

  it("fix a filter with several mistakes when applied one after another, as fixAll does", () => {
    const doc = 'status = "running" AND !Stop';
    const view = new StateView(stateOf(doc, { schema: schemas.job }));
    for (let round = 0; round < 10; round++) {
      const [first] = bexprDiagnostics(view.state).filter((d) => d.actions !== undefined && d.actions.length > 0);
      if (first === undefined) break;
      first.actions![0]!.apply(view.view, first.from, first.to);
    }
    expect(view.state.doc.toString()).toBe(fixAll(doc, { schema: schemas.job }).source);
    expect(view.state.doc.toString()).toBe('Status == "running" and Stop == false');
    expect(bexprDiagnostics(view.state)).toEqual([]);
  });
});
