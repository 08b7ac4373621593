/**
 * A full heap refuses writes: past `limits.stateHeapFraction` of the heap limit, a `PUT` or `POST`
 * that adds to the state is answered `503` with the reason in plain text, rather than taken until
 * the process runs out of heap; reads, deletions and `PUT /v1/system/gc` are still served.
 */
import { describe, expect, it } from "vitest";
import { Refusal } from "../../src/server/base/errors.js";
import { responseOf } from "../../src/server/http/errors.js";
import { DEFAULT_LIMITS, OptionsError, resolveOptions } from "../../src/server/options.js";
import { checkHeapForWrite, heapFull, STATE_HEAP_FRACTION } from "../../src/server/state/heap-limit.js";
import { job, send, useAgent } from "./support.js";

const MIB = 1024 * 1024;

describe("heapFull", () => {
  it.each([
    [800 * MIB, 1000 * MIB, 0.8, false],
    [800 * MIB + 1, 1000 * MIB, 0.8, true],
    [999 * MIB, 1000 * MIB, 1, false],
    [1, 1000 * MIB, 1e-9, false],
    [2, 1000 * MIB, 1e-9, true],
  ])("takes a heap of %d bytes used of %d at a fraction of %d: full %s (a use of exactly the share is accepted)", (usedBytes, limitBytes, fraction, full) => {
    expect(heapFull({ usedBytes, limitBytes }, fraction)).toBe(full);
  });

  it("refuses a write past the share with a 503 whose reason names the figures and the limit", () => {
    let refusal: unknown;
    try {
      checkHeapForWrite(0.85, { usedBytes: 900 * MIB, limitBytes: 1000 * MIB });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(Refusal);
    const response = responseOf(refusal)!;
    expect(response.status).toBe(503);
    expect(response.message).toMatch(/^The agent's memory is full: its heap holds 900 MiB, past 0\.85 of its 1000 MiB limit \(limits\.stateHeapFraction\)/);
    expect(() => checkHeapForWrite(0.85, { usedBytes: 850 * MIB, limitBytes: 1000 * MIB })).not.toThrow();
  });
});

describe("limits.stateHeapFraction", () => {
  it("defaults to STATE_HEAP_FRACTION", () => {
    expect(DEFAULT_LIMITS.stateHeapFraction).toBe(STATE_HEAP_FRACTION);
    expect(resolveOptions({}).limits.stateHeapFraction).toBe(STATE_HEAP_FRACTION);
  });

  it.each([0, -0.5, 1.01, Number.NaN, "0.5"])("refuses %s: a number above 0, at most 1", (value) => {
    expect(() => resolveOptions({ limits: { stateHeapFraction: value as number } })).toThrow(OptionsError);
    expect(() => resolveOptions({ limits: { stateHeapFraction: value as number } })).toThrow(/limits\.stateHeapFraction.*a number above 0, at most 1/);
  });

  it.each([1, 0.5, 1e-9])("takes %s", (value) => {
    expect(resolveOptions({ limits: { stateHeapFraction: value } }).limits.stateHeapFraction).toBe(value);
  });
});

describe("an agent whose heap is past its share", () => {
  // A share so small that any heap is past it: every write that adds to the state is refused.
  const full = useAgent({ limits: { stateHeapFraction: 1e-9 } });

  it.each([
    ["PUT", "/v1/jobs", JSON.stringify({ Job: job("refused") })],
    ["POST", "/v1/job/refused", JSON.stringify({ Job: job("refused") })],
    ["PUT", "/v1/namespace/more", JSON.stringify({ Name: "more" })],
    ["PUT", "/v1/var/a/b", JSON.stringify({ Items: { k: "v" } })],
  ])("answers %s %s with 503 and the reason in plain text, and keeps nothing", async (method, path, body) => {
    const response = await send(full.url + path, { method, body, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(503);
    expect(response.headers["content-type"]).toMatch(/^text\/plain/);
    expect(response.text).toMatch(/^The agent's memory is full: its heap holds \d+ MiB, past 1e-9 of its \d+ MiB limit/);
    expect((await full.get("/v1/jobs?prefix=refused")).json()).toEqual([]);
  });

  it.each([
    ["GET", "/v1/jobs", 200],
    ["DELETE", "/v1/job/missing", 200],
    ["PUT", "/v1/system/gc", 200],
  ])("still serves %s %s (%d)", async (method, path, status) => {
    expect((await send(full.url + path, { method })).status).toBe(status);
  });
});

describe("an agent whose heap is within its share", () => {
  const roomy = useAgent({ limits: { stateHeapFraction: 1 } });

  it("takes a registration", async () => {
    expect((await roomy.register(job("taken"))).EvalID).toMatch(/^[0-9a-f-]{36}$/);
  });
});
