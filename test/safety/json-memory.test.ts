/**
 * What a decoded request body keeps in memory (found by the stress suite: a job with 4 MiB of
 * metadata kept 129 MiB, because the JSON reader built strings a character at a time). Measured
 * after full collections, with the collector reached through V8's flag (no test runner option).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { decodeBody, decodeJsonBody } from "../../src/go/json.js";

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
