/**
 * What a decoded request body, and any JSON `parseJson` reads (the command line's input, `--data`
 * files, snapshots, control bodies), keeps in memory: found by the stress suite, a job with 4 MiB
 * of metadata kept 129 MiB, because the JSON readers built strings a character at a time (V8 then
 * keeps chains of one-character pieces, about 32 bytes a character). Measured after full
 * collections, with the collector reached through V8's flag (no test runner option).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { decodeBody, decodeJsonBody } from "../../src/go/json.js";
import { parseJson, stringifyJson } from "../../src/json.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap growth while `keep` holds what `make` returned, after full collections. */
function retained(make: () => unknown): { bytes: number; kept: unknown } {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  gc();
  return { bytes: process.memoryUsage().heapUsed - before, kept };
}

const MiB = 2 ** 20;

describe("decoded bodies keep about what they hold", () => {
  it("keeps a 4 MiB string in about 4 MiB (it took 128 MiB)", () => {
    const { bytes, kept } = retained(() => {
      const body = JSON.stringify({ Job: { ID: "x", Meta: { blob: "x".repeat(4 * MiB) } } });
      return decodeJsonBody(body);
    });
    expect((kept as { Job: { Meta: { blob: string } } }).Job.Meta.blob).toHaveLength(4 * MiB);
    expect(bytes).toBeLessThan(8 * MiB);
  });

  it("does not keep the body alive through the strings taken from it", () => {
    // Ten bodies of 1 MiB, each a small value followed by whitespace (read and ignored).
    const { bytes, kept } = retained(() =>
      Array.from({ length: 10 }, (_, k) => decodeJsonBody(`{"ID":"a-job-name-longer-than-a-slice-${k}","Meta":{"owner":"team-${k}-of-many"}}${" ".repeat(MiB)}`)),
    );
    expect((kept as { ID: string }[])[3]!.ID).toBe("a-job-name-longer-than-a-slice-3");
    expect(bytes).toBeLessThan(2 * MiB);
  });
});

describe("decoding as Go does", () => {
  it.each<[string, unknown]>([
    ['{"a":1,"a":"two"}', { a: "two" }],
    ['{"s":"tab\\tquote\\" \\u00e9 \\ud83d\\ude80"}', { s: 'tab\tquote" é 🚀' }],
    ['["short","a string longer than twelve characters",""]', ["short", "a string longer than twelve characters", ""]],
    ["[true,false,null]  trailing text is not read", [true, false, null]],
  ])("reads %s", (body, expected) => {
    expect(decodeJsonBody(body)).toEqual(expected);
  });

  it("keeps a __proto__ key as data, not as the prototype", () => {
    const value = decodeJsonBody('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect((value as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("matches struct fields case-insensitively, the exact name first", () => {
    const schema = { kind: "object", fields: { Name: "string", Count: "int" } } as const;
    expect(decodeBody('{"name":"a","COUNT":2,"unknown":3}', schema, "api.Thing")).toEqual({ Name: "a", Count: 2 });
    expect(decodeBody('{"Name":"exact","name":"folded"}', schema, "api.Thing")).toEqual({ Name: "folded" });
  });
});

/** A document of `count` objects holding strings of 20 to 80 characters, as snapshots hold them. */
function manyStrings(count: number): string {
  const rows = Array.from({ length: count }, (_, k) => ({
    ID: `service-${k}-of-the-payments-team`,
    Name: `a task group with a name of some length ${k}`,
    Meta: { owner: `team-${k % 17}@example.com`, description: `runs the ${k}th copy of the service, as the scheduler placed it` },
  }));
  return stringifyJson({ SubmitTime: 1717000000123456789n, Rows: rows });
}

describe("parseJson keeps about what the text holds", () => {
  it("keeps a 4 MiB string in about 4 MiB (it took 128 MiB)", () => {
    const { bytes, kept } = retained(() => parseJson(JSON.stringify({ Job: { ID: "x", Meta: { blob: "x".repeat(4 * MiB) } } })));
    expect((kept as { Job: { Meta: { blob: string } } }).Job.Meta.blob).toHaveLength(4 * MiB);
    expect(bytes).toBeLessThan(8 * MiB);
  });

  it("keeps a 4 MiB string in about 4 MiB beside an integer beyond 2^53, which stays exact", () => {
    const { bytes, kept } = retained(() => parseJson(`{"SubmitTime":1717000000123456789,"Meta":{"blob":"${"x".repeat(4 * MiB)}"}}`));
    expect(kept).toEqual({ SubmitTime: 1717000000123456789n, Meta: { blob: "x".repeat(4 * MiB) } });
    expect(bytes).toBeLessThan(8 * MiB);
  });

  it.each([
    ["integers that fit a double", ""],
    ["an integer beyond 2^53", "18446744073709551615"],
  ])("keeps a document of many strings in about its size, with %s", (_name, big) => {
    const text = manyStrings(20_000).replace("1717000000123456789", big === "" ? "1717000000" : big);
    const { bytes, kept } = retained(() => parseJson(text));
    expect((kept as { Rows: unknown[] }).Rows).toHaveLength(20_000);
    // 4.8 MB of text: about 5 MB of objects and strings (it kept 130 MB).
    expect(bytes).toBeLessThan(2 * text.length);
  });

  it("does not keep the text alive through the strings taken from it", () => {
    // Ten texts of 1 MiB, each a small value with an integer beyond 2^53, followed by whitespace.
    const { bytes, kept } = retained(() =>
      Array.from({ length: 10 }, (_, k) => parseJson(`{"ID":"a-job-name-longer-than-a-slice-${k}","SubmitTime":1717000000123456789${" ".repeat(MiB)}}`)),
    );
    expect((kept as { ID: string }[])[3]).toEqual({ ID: "a-job-name-longer-than-a-slice-3", SubmitTime: 1717000000123456789n });
    expect(bytes).toBeLessThan(2 * MiB);
  });
});
