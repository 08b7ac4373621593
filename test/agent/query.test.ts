import { describe, expect, it } from "vitest";
import { parseGoDuration } from "../../src/go/duration.js";
import { job, useAgent } from "./support.js";

const agent = useAgent();

describe("query parameters", () => {
  it.each([["?stale"], ["?stale="], ["?stale=true"], ["?stale=1"], ["?stale=false"], ["?stale=T"]])("accepts %s", async (query) => {
    expect((await agent.get(`/v1/jobs${query}`)).status).toBe(200);
  });

  it.each([
    ["?stale=maybe", "Expect `true` or `false` for `stale` query string parameter"],
    ["?per_page=abc", "Expect a number for `per_page` query string parameter"],
    ["?per_page=-1", "Expect a number for `per_page` query string parameter"],
    ["?per_page=1.5", "Expect a number for `per_page` query string parameter"],
    ["?per_page=99999999999", "Expect a number for `per_page` query string parameter"],
    ["?index=5&wait=10", "Invalid wait time"],
    ["?wait=1x", "Invalid wait time"],
    ["?index=-1", "Invalid index"],
    ["?index=abc", "Invalid index"],
    ["?index=1.5", "Invalid index"],
    // The first failing parameter wins, in the reference's order: stale, per_page, wait, index.
    ["?stale=x&per_page=y&wait=z&index=w", "Expect `true` or `false` for `stale` query string parameter"],
    ["?per_page=y&wait=z&index=w", "Expect a number for `per_page` query string parameter"],
    ["?index=w&wait=z", "Invalid wait time"],
    ["?meta=abc", 'Failed to parse value of "meta" (abc) as a bool: strconv.ParseBool: parsing "abc": invalid syntax'],
    ["?prefix=a&filter=ID%20%3D%3D%20a", "Filter expression cannot be used with other filter parameters"],
  ])("answers /v1/jobs%s with 400 %j", async (query, text) => {
    const response = await agent.get(`/v1/jobs${query}`);
    expect(response.status).toBe(400);
    expect(response.text).toBe(text);
  });

  it("refuses a filter combined with a prefix on deployments too", async () => {
    const response = await agent.get("/v1/deployments?prefix=ab&filter=Status%20%3D%3D%20running");
    expect(response.status).toBe(400);
    expect(response.text).toBe("Filter expression cannot be used with other filter parameters");
  });

  it.each([["/v1/jobs"], ["/v1/deployments"]])("answers %s?region=mars with the reference's No path to region", async (path) => {
    const response = await agent.get(`${path}?region=mars`);
    expect(response.status).toBe(500);
    expect(response.text).toBe("No path to region");
  });

  it("serves its own region, named or not", async () => {
    expect((await agent.get("/v1/jobs?region=global")).status).toBe(200);
    expect((await agent.get("/v1/jobs?region=")).status).toBe(200);
  });

  it("registers in another region only through forwarding, which has no path", async () => {
    const response = await agent.put("/v1/jobs?region=mars", { Job: job("elsewhere") });
    expect(response.status).toBe(500);
    expect(response.text).toBe("No path to region");
    const inBody = await agent.put("/v1/jobs", { Job: job("elsewhere", { Region: "mars" }) });
    expect(inBody.text).toBe("No path to region");
    const global = await agent.put("/v1/jobs", { Job: job("here", { Region: "global" }) });
    expect(global.status).toBe(200);
  });

  it("lists an unknown namespace as empty", async () => {
    const response = await agent.get("/v1/jobs?namespace=nosuch");
    expect(response.status).toBe(200);
    expect(response.text).toBe("[]");
  });
});

describe("Go durations for ?wait", () => {
  it.each([
    ["10s", 10_000],
    ["300ms", 300],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["1.5s", 1500],
    [".5s", 500],
    ["5.s", 5000],
    ["2h45m", 9_900_000],
    ["1m30s", 90_000],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["1500μs", 1.5],
    ["1000000ns", 1],
    ["0", 0],
    ["-1s", -1000],
    ["+1s", 1000],
  ])("reads %j as %s ms", (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([["10"], [""], ["s"], [".s"], ["1x"], ["1 s"], ["1h5"], ["--1s"], ["9999999999h"]])("rejects %j", (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});
