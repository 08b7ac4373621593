import { CompletionContext, insertCompletionText, type Completion as CodeMirrorCompletion, type CompletionResult, type CompletionSource } from "@codemirror/autocomplete";
import type { EditorState } from "@codemirror/state";
import { describe, expect, it, vi } from "vitest";
import { setBexprContext, type BexprOptions, type ValuesRequest } from "../../src/codemirror/index.js";
import { COMPLETION_TYPES, LIVE_VALUE_DETAIL } from "../../src/codemirror/mapping.js";
import { complete, MAX_VALUE_COMPLETIONS, schemas, type Completion } from "../../src/index.js";
import { cursorIn, StateView, stateOf } from "./support.js";

const samples = [
  { ID: "web", Status: "running", Stop: false, Meta: { owner: "team-a", "web-api": "yes" }, Datacenters: ["dc1", "dc2"] },
  { ID: "api", Status: "pending", Stop: false, Meta: { owner: "team-b" }, Datacenters: ["dc1"] },
];

/** The completion source the extension gives CodeMirror (through the language's data), in `state`. */
function sourceIn(state: EditorState, pos: number): CompletionSource {
  const sources = state.languageDataAt<CompletionSource>("autocomplete", pos);
  expect(sources).toHaveLength(1);
  return sources[0]!;
}

/** The result of the extension's completion source at the `|` of `source`. */
async function completeIn(source: string, options: BexprOptions = {}, explicit = true): Promise<{ state: EditorState; result: CompletionResult | null; pos: number }> {
  const { doc, pos } = cursorIn(source);
  const state = stateOf(doc, options);
  const result = await sourceIn(state, pos)(new CompletionContext(state, pos, explicit));
  return { state, result, pos };
}

/** The document after choosing `option` of `result`, as CodeMirror applies it. */
function pick(state: EditorState, result: CompletionResult, option: CodeMirrorCompletion): string {
  const view = new StateView(state);
  if (typeof option.apply === "function") option.apply(view.view, option, result.from, result.to ?? state.selection.main.head);
  else view.dispatch(insertCompletionText(state, option.apply ?? option.label, result.from, result.to ?? state.selection.main.head));
  return view.state.doc.toString();
}

/** `source` with `completion` applied, as `complete`'s own tests apply it. */
function applied(source: string, completion: Completion): string {
  return source.slice(0, completion.range.start) + completion.text + source.slice(completion.range.end);
}

describe("completion", () => {
  it.each([
    ['Status == "running"|', null],
    ["Status == `running`|", null],
    ['(Status == "running")|', null],
    ['Status == "|', "offers"],
    ['Status == "a\\"|', "offers"],
    ["Sta|", "offers"],
  ] as const)("while typing, at %j: %s", async (source, expected) => {
    const { result } = await completeIn(source, { schema: schemas.job, samples }, false);
    if (expected === null) expect(result).toBeNull();
    else expect(result).not.toBeNull();
    // Asked for (Ctrl-Space), it answers anywhere.
    expect((await completeIn(source, { schema: schemas.job, samples }, true)).result).not.toBeNull();
  });

  it.each([
    ["", { schema: schemas.job }],
    ["Sta|", { schema: schemas.job }],
    ["Status |", {}],
    ["Status is |", {}],
    ['Status == "r|', { samples }],
    ["Status == |", { samples }],
    ["Meta.|", { samples }],
    ["Meta.o|wner == 1", { samples }],
    ["Meta[|", { samples }],
    ["any Datacenters as dc { d|", { samples }],
    ['Status == "running" |', {}],
  ] as const)("offers complete's completions at %j, in its order, with its labels, types and details", async (source, options) => {
    const { doc, pos } = cursorIn(source);
    const expected = complete(doc, pos, options);
    expect(expected.length).toBeGreaterThan(0);
    const { state, result } = await completeIn(source, options);
    expect(result).not.toBeNull();
    expect(result!.filter).toBe(false);
    expect(result!.options.map(({ label, type, detail }) => ({ label, type, detail }))).toEqual(
      expected.map((c) => ({ label: c.label, type: COMPLETION_TYPES[c.kind], detail: c.detail })),
    );
    // Each one, applied as CodeMirror applies it, edits the filter as complete's range and text say.
    result!.options.forEach((option, i) => expect(pick(state, result!, option)).toBe(applied(doc, expected[i]!)));
  });

  it("offers nothing where complete offers nothing", async () => {
    expect(complete("Status =|= 1".replace("|", ""), 8)).toEqual([]);
    expect((await completeIn("Status =|= 1")).result).toBeNull();
  });

  it("replaces the dot too for a key that is not a name, and only the word for the others", async () => {
    const { state, result } = await completeIn("Meta.|", { samples });
    const byLabel = (label: string) => result!.options.find((option) => option.label === label)!;
    expect(pick(state, result!, byLabel("web-api"))).toBe('Meta["web-api"]');
    expect(pick(state, result!, byLabel("owner"))).toBe("Meta.owner");
  });

  it("completes with the schema and samples of the state, which setBexprContext changes", async () => {
    const state = stateOf("Status == ").update({ effects: setBexprContext({ samples }) }).state;
    const result = await sourceIn(state, 10)(new CompletionContext(state, 10, true));
    expect(result?.options.map((option) => option.label)).toEqual(["running", "pending"]);
  });

  it("gives each kind of completion a CodeMirror type with an icon", () => {
    expect(COMPLETION_TYPES).toEqual({ field: "property", key: "property", value: "constant", variable: "variable", operator: "operator keyword", keyword: "keyword" });
  });
});

describe("completion with a source of live values", () => {
  it("asks for the field left of the cursor, and merges its values after the samples', without repeats", async () => {
    const values = vi.fn(async (_request: ValuesRequest) => ["running", "dead", "draining"]);
    const { state, result } = await completeIn("Status == |", { samples, values });
    expect(values).toHaveBeenCalledOnce();
    const request = values.mock.calls[0]![0];
    expect({ path: request.selector.path, operator: request.operator, prefix: request.prefix }).toEqual({ path: ["Status"], operator: "Equal", prefix: "" });
    expect(result!.options.map(({ label, detail }) => [label, detail])).toEqual([
      ["running", undefined],
      ["pending", undefined],
      ["dead", LIVE_VALUE_DETAIL],
      ["draining", LIVE_VALUE_DETAIL],
    ]);
    expect(pick(state, result!, result!.options[3]!)).toBe('Status == "draining"');
  });

  it("keeps the live values that start with what is typed, in a string, and replaces the whole string", async () => {
    const values = vi.fn(async (_request: ValuesRequest): Promise<readonly string[]> => ["Running", "dead", "rebooting", 'say "hi"']);
    const { state, result } = await completeIn('Status == "r|" and Stop == false', { values });
    expect(values.mock.calls[0]![0].prefix).toBe("r");
    expect(result!.options.map((option) => option.label)).toEqual(["Running", "rebooting"]);
    expect(pick(state, result!, result!.options[0]!)).toBe('Status == "Running" and Stop == false');
  });

  it("quotes live values as complete quotes values (a quote as \\x22)", async () => {
    const { state, result } = await completeIn("Name == |", { values: async () => ['say "hi"', "/root"] });
    expect(result!.options.map((option) => pick(state, result!, option))).toEqual(['Name == "say \\x22hi\\x22"', 'Name == "\\x2froot"']);
  });

  it.each([
    ['"|" in Datacenters', ["Datacenters"], "In"],
    ["Datacenters contains d|", ["Datacenters"], "In"],
    ['Meta["web-api"] != |', ["Meta", "web-api"], "NotEqual"],
    ["any TaskGroups as tg { tg.Name == |", ["tg", "Name"], "Equal"],
    ['X == 1 or (Name matches "a|', ["Name"], "Matches"],
  ])("at %j asks for %j with %s", async (source, path, operator) => {
    const values = vi.fn(async (_request: ValuesRequest): Promise<readonly string[]> => []);
    await completeIn(source, { values });
    expect(values).toHaveBeenCalledOnce();
    expect(values.mock.calls[0]![0].selector.path).toEqual(path);
    expect(values.mock.calls[0]![0].operator).toBe(operator);
  });

  it.each(["Status |", 'Status == "running"|', "Sta|", "Status == running and |", "Meta.|", "Status is |"])("is not asked at %j, where no value goes", async (source) => {
    const values = vi.fn(async (_request: ValuesRequest): Promise<readonly string[]> => ["x"]);
    const { result } = await completeIn(source, { samples, values });
    expect(values).not.toHaveBeenCalled();
    const { doc, pos } = cursorIn(source);
    expect(result?.options.map((option) => option.label) ?? []).toEqual(complete(doc, pos, { samples }).map((c) => c.label));
  });

  it("leaves the other completions when it fails", async () => {
    const { result } = await completeIn("Status == |", { samples, values: async () => Promise.reject(new Error("offline")) });
    expect(result!.options.map((option) => option.label)).toEqual(["running", "pending"]);
  });

  it("gets an abort signal, aborted when the completion is no longer wanted, and then offers nothing", async () => {
    let request: ValuesRequest | undefined;
    let answer: (values: readonly string[]) => void = () => {};
    const { doc, pos } = cursorIn("Status == |");
    const state = stateOf(doc, { values: (r) => ((request = r), new Promise((resolve) => (answer = resolve))) });
    const context = new CompletionContext(state, pos, true);
    const pending = sourceIn(state, pos)(context);
    expect(request?.signal.aborted).toBe(false);
    // What CodeMirror does when the user types on.
    (context as unknown as { abortListeners: (() => void)[] | null }).abortListeners?.forEach((listener) => listener());
    (context as unknown as { abortListeners: null }).abortListeners = null;
    expect(request?.signal.aborted).toBe(true);
    answer(["running"]);
    expect(await pending).toBeNull();
  });

  it(`offers at most ${MAX_VALUE_COMPLETIONS} values in all, as complete does`, async () => {
    const many = Array.from({ length: 3 * MAX_VALUE_COMPLETIONS }, (_, i) => `v${i}`);
    const { result } = await completeIn("Status == |", { samples, values: async () => many });
    expect(result!.options).toHaveLength(MAX_VALUE_COMPLETIONS);
    expect(result!.options.slice(0, 3).map((option) => option.label)).toEqual(["running", "pending", "v0"]);
  });
});
