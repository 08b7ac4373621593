/**
 * Renaming a variable an `any`/`all` binds never changes what the filter reads: `renameVariable`
 * gives the spans to rewrite, or refuses with the reference that would change (gopls' rule). A
 * selector whose head names a variable reads it (either form: `x.Name`, `"/x/Name"`), the
 * innermost binding of the name winning; other selectors read fields of the object.
 */
import { describe, expect, it } from "vitest";
import { renameVariable, type Rename } from "../../src/editor/structure.js";
import { compileFilter } from "../../src/index.js";

/**
 * The rename of the variable at the `|` of `marked` to `newName`, the source it was asked about
 * (without the marks), and the offset of the `^` in it, which marks the reference that stops it.
 */
function renameAt(marked: string, newName: string): { readonly source: string; readonly rename: Rename; readonly mark: number } {
  const cursor = marked.replace("^", "").indexOf("|");
  const mark = marked.replace("|", "").indexOf("^");
  const source = marked.replace("|", "").replace("^", "");
  return { source, rename: renameVariable(source, cursor, newName), mark };
}

/** The source with each span replaced by `text`. */
function applySpans(source: string, spans: readonly { start: number; end: number }[], text: string): string {
  return [...spans].sort((a, b) => b.start - a.start).reduce((out, span) => out.slice(0, span.start) + text + out.slice(span.end), source);
}

/** What the filter gives for `datum`: its result, or its evaluation error's code. */
function outcome(source: string, datum: unknown): boolean | string {
  try {
    return compileFilter(source).test(datum);
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe("renaming a variable", () => {
  it("refuses the issue's rename, whose capture turns the filter from true into an evaluation error", () => {
    const { source, rename } = renameAt('any TaskGroups as t|g { tg.Name == "y" and Name == "x" }', "Name");
    expect(rename).toEqual({
      kind: "refused",
      code: "captured_reference",
      span: { start: source.lastIndexOf("Name =="), end: source.lastIndexOf("Name ==") + 4 },
      message: 'renaming "tg" to "Name" would capture the reference Name at 1:43: it reads the field "Name" of the object, and would read the renamed variable instead',
    });
    // What it would have done: the body's own `Name` reads the element.
    const datum = { TaskGroups: [{ Name: "y" }], Name: "x" };
    expect(outcome(source, datum)).toBe(true);
    expect(outcome('any TaskGroups as Name { Name.Name == "y" and Name == "x" }', datum)).toBe("unsupported_operand");
  });

  // Capture: a selector in the scope whose head is the new name reads a field, or a variable bound
  // outside the renamed one (which the renamed variable would then shadow); it would read the renamed one.
  it.each([
    ["a field, after the uses", 'any TaskGroups as |tg { tg.Name == "y" and ^Name == "x" }', "Name", "Name"],
    ["a field, before the uses", 'any TaskGroups as tg { ^Name == "x" and |tg.Name == "y" }', "Name", "Name"],
    ["a field's path", 'any TaskGroups as |tg { ^Meta.owner == "x" and tg.Count == 1 }', "Meta", "Meta.owner"],
    ["a field in JSON-pointer form", 'any TaskGroups as |tg { ^"/Name" == "x" }', "Name", '"/Name"'],
    ["the target of a collection in the scope", 'any TaskGroups as |tg { any ^Tasks as t { t.Name == "x" } }', "Tasks", "Tasks"],
    ["a field in a nested body", "any A as |x { any x.B as y { y == 1 and ^Name == 2 } }", "Name", "Name"],
    ["a field, renaming the key of `as k, v`", 'any Meta as |k, v { k == "owner" and ^Status == "x" }', "Status", "Status"],
    ["a field, renaming the value of `as k, v`", 'any Meta as k, |v { v == "a" and ^Status == "x" }', "Status", "Status"],
    ["a field, renaming the value of `as _, v`", 'any Meta as _, |v { v == "a" and ^Status == "x" }', "Status", "Status"],
    ["an outer variable, which the renamed one would shadow", "any A as x { any x.B as |y { y == 1 and ^x.C == 2 } }", "x", "x.C"],
    ["an outer variable two levels out", "any A as x { any x.B as y { any y.C as |z { z == 1 and ^x.D == 2 } } }", "x", "x.D"],
    ["an outer key of `as k, v`", 'any Meta as k, v { any Tags as |t { t == "x" and ^k == "owner" } }', "k", "k"],
  ])("refuses a rename capturing %s", (_what, marked, newName, captured) => {
    const { rename, mark } = renameAt(marked, newName);
    expect(rename).toMatchObject({ kind: "refused", code: "captured_reference", span: { start: mark } });
    expect(rename.kind === "refused" && rename.message).toContain(`capture the reference ${captured} at 1:${mark + 1}:`);
  });

  // Shadowing: a use of the renamed variable would read another variable of the new name bound inside its scope.
  it.each([
    ["a variable of a nested collection", "any A as |x { any x.B as y { y == 1 and ^x.C == 2 } }", "y", "y {"],
    ["the key of a nested `as k, v`", "any A as |x { any x.B as i, v { ^x.C == v } }", "i", "i,"],
    ["the value of a nested `as k, v`", "any A as |x { any x.B as i, v { ^x.C == v } }", "v", "v {"],
    ["a variable two levels in", "any A as |x { any x.B as y { any y.C as z { ^x.D == z } } }", "z", "z {"],
    ["a variable of an `all` inside", "any A as |x { all x.B as y { ^x == y } }", "y", "y {"],
  ])("refuses a rename whose use would be shadowed by %s", (_what, marked, newName, declaration) => {
    const { source, rename, mark } = renameAt(marked, newName);
    expect(rename).toMatchObject({ kind: "refused", code: "shadowed_use", span: { start: mark, end: mark + 1 } });
    expect(rename.kind === "refused" && rename.message).toContain(`at 1:${mark + 1} read the other variable "${newName}", bound at 1:${source.indexOf(declaration) + 1}, instead`);
  });

  it.each([
    ["the index as the value's name", "any Meta as |k, v { v == k }", "v", "bound_twice"],
    ["the value as the index's name", "any Meta as k, |v { v == k }", "k", "bound_twice"],
    ["either name of `as x, x` (the filter fails on any element now)", "any Meta as |x, x { x == 1 }", "y", "bound_twice"],
    ["a variable a JSON pointer reads (not rewritten)", 'any TaskGroups as |tg { "/tg/Name" == "y" }', "g", "pointer_use"],
    ["a field", 'any TaskGroups as tg { tg.Name == "y" and Na|me == "x" }', "g", "not_a_variable"],
    ["to a keyword", "any A as |x { x == 1 }", "and", "invalid_name"],
    ["to _", "any A as |x { x == 1 }", "_", "invalid_name"],
  ])("refuses renaming %s", (_what, marked, newName, code) => {
    expect(renameAt(marked, newName).rename).toMatchObject({ kind: "refused", code });
  });

  // Allowed: what every selector reads stays the same (checked by evaluating both filters).
  it.each([
    ["to a fresh name", 'any TaskGroups as |tg { tg.Name == "y" and Name == "x" }', "g", 'any TaskGroups as g { g.Name == "y" and Name == "x" }'],
    ["to a field read only outside the scope", 'Name == "x" and (any TaskGroups as |tg { tg.Name == "y" })', "Name", 'Name == "x" and (any TaskGroups as Name { Name.Name == "y" })'],
    ["to the field its own collection iterates", 'any Tags as |t { t == "dc1" }', "Tags", 'any Tags as Tags { Tags == "dc1" }'],
    ["to a name only an unquoted value spells (text, not a reference)", "any Tags as |t { t == Name }", "Name", "any Tags as Name { Name == Name }"],
    ["to an outer variable's name where no selector in the scope reads it", "any A as x { x.B == 1 and (any x.C as |y { y == 2 }) }", "x", "any A as x { x.B == 1 and (any x.C as x { x == 2 }) }"],
    ["to the name of an inner variable that its readers already read", "any A as |x { any x.B as Name { Name == 1 } }", "Name", "any A as Name { any Name.B as Name { Name == 1 } }"],
    ["the inner of two variables of one name", "any A as g { any g.B as |g { g == 1 } }", "h", "any A as g { any g.B as h { h == 1 } }"],
    ["the outer of two variables of one name, to the name of none", "any A as |g { g.C == 1 and (any g.B as g { g == 1 }) }", "h", "any A as h { h.C == 1 and (any h.B as g { g == 1 }) }"],
    ["the key of `as k, v` to a fresh name", 'any Meta as |k, v { k == "owner" and v == "a" }', "key", 'any Meta as key, v { key == "owner" and v == "a" }'],
    ["to its own name", "any A as |x { x == 1 }", "x", "any A as x { x == 1 }"],
  ])("renames %s", (_what, marked, newName, expected) => {
    const { source, rename } = renameAt(marked, newName);
    expect(rename.kind).toBe("renamed");
    const renamed = applySpans(source, (rename as Extract<Rename, { kind: "renamed" }>).spans, newName);
    expect(renamed).toBe(expected);
    for (const datum of DATA) expect(outcome(renamed, datum), JSON.stringify(datum)).toEqual(outcome(source, datum));
  });
});

/** Objects the allowed renames are evaluated on, before and after. */
const DATA: readonly unknown[] = [
  { Name: "x", Tags: ["dc1", "web"], TaskGroups: [{ Name: "y" }], A: [{ B: [1, 2], C: [2] }], Meta: { owner: "a" } },
  { Name: "Name", Tags: ["Name"], TaskGroups: [{ Name: "z" }], A: [{ B: [{ B: [1] }], C: [] }], Meta: { other: "b" } },
  { Name: "x", Tags: [], TaskGroups: [], A: [], Meta: {} },
];
