/**
 * Rows as the PostgreSQL store keeps them: the JSON text gives back an equal row, int64 values
 * exact, whether it is read by `JSON.parse` (the fast way, when exact) or by the lossless reader.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { decodeRow, encodeRow, RowEncoder } from "../../src/server/state/postgres/rows.js";
import type { Job } from "../../src/server/state/model.js";

/**
 * JSON values as the agent stores them (decoded by `plainJson`): numbers, and integers beyond 2^53
 * as bigints (a whole double beyond 2^53 is never stored as a number: it is read as a bigint).
 */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string(),
    fc.constantFrom("12345678901234567", '"SubmitTime":1', "x", ""),
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .filter((n) => !Number.isInteger(n) || Number.isSafeInteger(n))
      .map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.integer(),
    fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n }),
    fc.bigInt({ min: -(2n ** 63n), max: -(2n ** 53n) }),
    fc.boolean(),
    fc.constant(null),
  ),
  node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(fc.constantFrom("a", "SubmitTime", "Count", "b c"), tie("node"), { maxKeys: 3 })),
})).node;

describe("a stored row", () => {
  it("reads back equal to the row, int64 exact, for any content", () => {
    fc.assert(
      fc.property(value, value, fc.bigInt({ min: 10n ** 18n, max: 2n * 10n ** 18n }), fc.integer({ min: 1, max: 2 ** 40 }), (content, after, submitTime, index) => {
        // Content after the int64 field too (a row's own fields are written last, but the reader must not rely on it).
        const job = { ID: "x", Namespace: "default", TaskGroups: [{ Name: "g", Count: 1, Config: content }], SubmitTime: submitTime, CreateIndex: index, ModifyIndex: index, After: after } as unknown as Job;
        const text = encodeRow("jobs", job);
        const decoded = decodeRow("jobs", text);
        expect(decoded).toEqual(job);
        // The same as the lossless reader gives (with the int64 field a bigint).
        expect(decoded).toEqual({ ...(parseJson(text) as object), SubmitTime: submitTime });
      }),
      { numRuns: 2000 },
    );
  });

  it("reads a job version back equal, its job's int64 time exact, for any content", () => {
    fc.assert(
      fc.property(value, fc.bigInt({ min: 0n, max: 2n * 10n ** 18n }), fc.integer({ min: 0, max: 2 ** 40 }), (content, submitTime, index) => {
        const job = { ID: "x", Namespace: "default", TaskGroups: [{ Name: "g", Count: 1, Config: content }], Version: 3, SubmitTime: submitTime, CreateIndex: index, ModifyIndex: index };
        const version = { Namespace: "default", ID: "x", Version: 3, Job: job };
        const decoded = decodeRow("job_versions", encodeRow("job_versions", version as never));
        expect(decoded).toEqual(version);
        // A time that fits a number is a bigint all the same.
        expect(typeof decoded.Job.SubmitTime).toBe("bigint");
      }),
      { numRuns: 1000 },
    );
  });

  it("writes a batch's job version as encodeRow does, its job's text made once with the job's row", () => {
    fc.assert(
      fc.property(value, fc.bigInt({ min: 0n, max: 2n * 10n ** 18n }), fc.boolean(), (content, submitTime, jobFirst) => {
        // The job's fields are read each time its text is made: a getter counts the readings.
        let readings = 0;
        const job = { ID: "x", Namespace: "default", Version: 3, SubmitTime: submitTime } as Record<string, unknown>;
        Object.defineProperty(job, "Meta", { enumerable: true, get: () => (readings++, content) });
        const version = { Namespace: "default", ID: "x", Version: 3, Job: job };
        const encoder = new RowEncoder();
        const texts = jobFirst
          ? [encoder.encode("jobs", job as never), encoder.encode("job_versions", version as never)]
          : [encoder.encode("job_versions", version as never), encoder.encode("jobs", job as never)].reverse();
        expect(readings).toBe(1);
        expect(texts).toEqual([encodeRow("jobs", job as never), encodeRow("job_versions", version as never)]);
      }),
      { numRuns: 300 },
    );
  });

  it("writes a version whose job is not its last field whole", () => {
    const job = { ID: "x", Namespace: "default", Version: 1, SubmitTime: 5n };
    const version = { Job: job, Namespace: "default", ID: "x", Version: 1 };
    const encoder = new RowEncoder();
    encoder.encode("jobs", job as never);
    expect(encoder.encode("job_versions", version as never)).toBe(encodeRow("job_versions", version as never));
  });

  it("keeps an ACL token's secret hash", () => {
    const token = { AccessorID: "a", SecretID: "s", secretHash: Buffer.from("00ff10", "hex"), CreateIndex: 3, ModifyIndex: 3 };
    expect(decodeRow("acl_token", encodeRow("acl_token", token as never))).toEqual(token);
  });
});
