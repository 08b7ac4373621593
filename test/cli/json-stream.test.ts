/**
 * The command line's JSON input, split into values as it arrives: the longest value it holds
 * (`MAX_JSON_VALUE_LENGTH`, 256 MiB; here a bound of a few characters, given to the splitter, so
 * that every form is refused at its edge without hundreds of megabytes: test/cli/streaming.test.ts
 * sends the real 256 MiB), and the places its messages name.
 */
import { describe, expect, it } from "vitest";
import { JsonValueSplitter } from "../../src/cli/json-stream.js";

/** The values the splitter reads from `pieces` with a bound of `most` characters, or its message. */
function split(pieces: readonly string[], most: number): { values: unknown[]; lines: (number | undefined)[] } | { error: string; piecesRead: number } {
  const splitter = new JsonValueSplitter("stdin", most);
  const values: unknown[] = [];
  const lines: (number | undefined)[] = [];
  const take = () => {
    const batch = splitter.take();
    values.push(...batch.values);
    lines.push(...(batch.lines ?? batch.values.map(() => undefined)));
  };
  let piecesRead = 0;
  try {
    for (const piece of pieces) {
      piecesRead++;
      splitter.push(piece);
      take();
    }
    splitter.end();
    take();
  } catch (error) {
    return { error: (error as Error).message, piecesRead };
  }
  return { values, lines };
}

/** `text` in pieces of `size` characters, as a stream delivers it. */
const inPieces = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, k) => text.slice(k * size, (k + 1) * size));

describe("the longest value read", () => {
  it.each<[string, string, string]>([
    ["a line of JSON lines", `{"a":1}\n\n"${"x".repeat(30)}"\n{"a":2}\n`, "stdin: line 3 is longer than 20 characters, the most bexpr reads as one JSON value"],
    ["the last line, without its newline", `{"a":1}\n"${"x".repeat(30)}"`, "stdin: line 2 is longer than 20 characters, the most bexpr reads as one JSON value"],
    ["an element of an array", `[1,\n  "short",\n  "${"x".repeat(30)}", 2]`, "stdin: the array element at line 3, column 3 is longer than 20 characters, the most bexpr reads as one JSON value"],
    ["a document over several lines", `\n{\n  "a": 1,\n  "b": [1, 2, 3, 4]\n}\n`, "stdin: the JSON value from line 2 is longer than 20 characters, the most bexpr reads as one JSON value"],
    ["the blank lines before the first value", `${"  \n".repeat(10)}{\n"a": 1}\n`, "stdin: the whitespace before the first value is longer than 20 characters, the most bexpr reads as one JSON value"],
  ])("refuses %s longer than the bound, naming where it starts", (_form, text, message) => {
    for (const size of [1, 7, text.length]) expect(split(inPieces(text, size), 20)).toMatchObject({ error: message });
  });

  it("holds no more whitespace before the first value than the bound, across pieces", () => {
    const message = "stdin: the whitespace before the first value is longer than 20 characters, the most bexpr reads as one JSON value";
    expect(split([...inPieces(" ".repeat(30), 7), "[1]"], 20)).toEqual({ error: message, piecesRead: 3 });
    // In the piece that holds the value it is only scanned, not held.
    expect(split([`${" ".repeat(30)}[1]`], 20)).toEqual({ values: [1], lines: [undefined] });
  });

  it("refuses a value as it arrives, before the rest of the input is read", () => {
    const pieces = ['{"a":"', ...Array.from({ length: 100 }, () => "x".repeat(10))];
    expect(split(pieces, 50)).toEqual({ error: "stdin: line 1 is longer than 50 characters, the most bexpr reads as one JSON value", piecesRead: 6 });
    const array = ['["', ...Array.from({ length: 100 }, () => "x".repeat(10))];
    expect(split(array, 50)).toMatchObject({ piecesRead: 6 });
  });

  it.each<[string, string, unknown[]]>([
    ["a line", `"${"x".repeat(18)}"\n"${"y".repeat(18)}"`, ["x".repeat(18), "y".repeat(18)]],
    ["an array element", `[\n"${"x".repeat(18)}"]`, ["x".repeat(18)]],
    ["a document", `{\n"a":\n"${"x".repeat(8)}"}`, [{ a: "x".repeat(8) }]],
  ])("reads %s of exactly the bound", (_form, text, values) => {
    for (const size of [1, 5, text.length]) expect(split(inPieces(text, size), 20)).toMatchObject({ values });
  });

  it("reads a value of 256 MiB by default", () => {
    const splitter = new JsonValueSplitter("stdin");
    splitter.push(`"${"x".repeat(2 ** 20)}"\n`);
    expect(splitter.take().values).toEqual(["x".repeat(2 ** 20)]);
  });
});

describe("the places of mistakes", () => {
  it.each<[string, string, string]>([
    ["after a surrogate pair, one column", '{"a": "🚀", "b" 1}\n', "stdin is not valid JSON: Colon ':' expected after property name but got '1' at line 1, column 16"],
    ["after a lone low surrogate, one column of its own", '{"a": "\udc00\udc00", "b" 1}\n', "stdin is not valid JSON: Colon ':' expected after property name but got '1' at line 1, column 17"],
    ["on a later line of a document", '{\n  "a": "🚀🚀",\n  "b" 1\n}\n', "stdin is not valid JSON: Colon ':' expected after property name but got '1' at line 3, column 7"],
    ["in an array element", '[\n  {"a": "🚀"},\n  {"b" 1}\n]\n', "stdin is not valid JSON: Colon ':' expected after property name but got '1' at line 3, column 8"],
    ["in an array element after a lone low surrogate", '[\n  "\udc00", {"b" 1}\n]\n', "stdin is not valid JSON: Colon ':' expected after property name but got '1' at line 2, column 13"],
  ])("counts code points %s", (_case, text, message) => {
    for (const size of [1, 3, text.length]) expect(split(inPieces(text, size), 1000)).toMatchObject({ error: message });
  });

  it("gives the line a document over several lines starts on", () => {
    expect(split(["\n\n  {\n", '"a": 1}\n'], 1000)).toEqual({ values: [{ a: 1 }], lines: [3] });
  });
});
