import { describe, expect, it } from "vitest";
import { GoDurationError, MAX_GO_DURATION_NS, MIN_GO_DURATION_NS, parseGoDuration, parseGoDurationNs } from "../../src/go/duration.js";
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
  it("refuses ?wait past int64 nanoseconds, as Go does", async () => {
    const response = await agent.get("/v1/jobs?wait=9223372036854775808ns");
    expect([response.status, response.text]).toEqual([400, "Invalid wait time"]);
  });
});

/** Go's time.Duration constants, in nanoseconds. */
const [NS, US, MS, S, M, H] = [1n, 1_000n, 1_000_000n, 1_000_000_000n, 60_000_000_000n, 3_600_000_000_000n];

describe("Go's time.ParseDuration", () => {
  // Go's own table (src/time/time_test.go, parseDurationTests), and the edges of int64 nanoseconds.
  it.each([
    ["0", 0n],
    ["5s", 5n * S],
    ["1478s", 1478n * S],
    ["-5s", -5n * S],
    ["+5s", 5n * S],
    ["-0", 0n],
    ["+0", 0n],
    ["5.0s", 5n * S],
    ["5.6s", 5n * S + 600n * MS],
    ["5.s", 5n * S],
    [".5s", 500n * MS],
    ["1.004s", S + 4n * MS],
    ["1.0040s", S + 4n * MS],
    ["100.00100s", 100n * S + MS],
    ["10ns", 10n * NS],
    ["11us", 11n * US],
    ["12µs", 12n * US],
    ["12μs", 12n * US],
    ["13ms", 13n * MS],
    ["15m", 15n * M],
    ["16h", 16n * H],
    ["3h30m", 3n * H + 30n * M],
    ["10.5s4m", 4n * M + 10n * S + 500n * MS],
    ["-2m3.4s", -(2n * M + 3n * S + 400n * MS)],
    ["1h2m3s4ms5us6ns", H + 2n * M + 3n * S + 4n * MS + 5n * US + 6n * NS],
    ["39h9m14.425s", 39n * H + 9n * M + 14n * S + 425n * MS],
    ["52763797000ns", 52763797000n],
    // More than 9 digits after the point (golang.org/issue/6617), and a fraction past what int64 holds (issue 15011).
    ["0.3333333333333333333h", 20n * M],
    ["0.100000000000000000000h", 6n * M],
    // The first overflow check of leadingFraction.
    ["0.830103483285477580700h", 49n * M + 48n * S + 372539827n * NS],
    // 1<<53+1 does not fit a float64.
    ["9007199254740993ns", 2n ** 53n + 1n],
    // The longest duration, in three spellings, and the most negative (Go 1.19+, golang.org/issue/48629).
    ["9223372036854775807ns", MAX_GO_DURATION_NS],
    ["9223372036854775.807us", MAX_GO_DURATION_NS],
    ["9223372036s854ms775us807ns", MAX_GO_DURATION_NS],
    ["2562047h47m16.854775807s", MAX_GO_DURATION_NS],
    ["-9223372036854775808ns", MIN_GO_DURATION_NS],
    ["-9223372036854775.808us", MIN_GO_DURATION_NS],
    ["-9223372036s854ms775us808ns", MIN_GO_DURATION_NS],
    ["-2562047h47m16.854775808s", MIN_GO_DURATION_NS],
    ["2562047h", 2562047n * H],
  ])("reads %j as %s ns", (text, nanoseconds) => {
    expect(parseGoDurationNs(text)).toBe(nanoseconds);
  });

  // Go's parseDurationErrorTests, with the code behind each text.
  it.each([
    ["", "invalid_duration", 'time: invalid duration ""'],
    ["3", "missing_unit", 'time: missing unit in duration "3"'],
    ["-", "invalid_duration", 'time: invalid duration "-"'],
    ["s", "invalid_duration", 'time: invalid duration "s"'],
    [".", "invalid_duration", 'time: invalid duration "."'],
    ["-.", "invalid_duration", 'time: invalid duration "-."'],
    [".s", "invalid_duration", 'time: invalid duration ".s"'],
    ["+.s", "invalid_duration", 'time: invalid duration "+.s"'],
    ["1d", "unknown_unit", 'time: unknown unit "d" in duration "1d"'],
    ["1h5", "missing_unit", 'time: missing unit in duration "1h5"'],
    ["1 s", "unknown_unit", 'time: unknown unit " s" in duration "1 s"'],
    ["1\u00b5", "unknown_unit", 'time: unknown unit "\\xc2\\xb5" in duration "1\\xc2\\xb5"'],
    ["\uFFFD", "invalid_duration", 'time: invalid duration "\\xef\\xbf\\xbd"'],
    ["\uFFFD hello \uFFFD world", "invalid_duration", 'time: invalid duration "\\xef\\xbf\\xbd hello \\xef\\xbf\\xbd world"'],
    ['"1s"', "invalid_duration", 'time: invalid duration "\\"1s\\""'],
    // One past int64 nanoseconds, each way, and each overflow check of the parser.
    ["9223372036854775808ns", "out_of_range", 'time: invalid duration "9223372036854775808ns"'],
    ["-9223372036854775809ns", "out_of_range", 'time: invalid duration "-9223372036854775809ns"'],
    ["9223372036854775810ns", "out_of_range", 'time: invalid duration "9223372036854775810ns"'],
    ["99999999999999999999ns", "out_of_range", 'time: invalid duration "99999999999999999999ns"'],
    ["9223372036854776us", "out_of_range", 'time: invalid duration "9223372036854776us"'],
    ["3000000h", "out_of_range", 'time: invalid duration "3000000h"'],
    ["2562048h", "out_of_range", 'time: invalid duration "2562048h"'],
    ["2562047h47m16.854775808s", "out_of_range", 'time: invalid duration "2562047h47m16.854775808s"'],
    ["9223372036854775.808us", "out_of_range", 'time: invalid duration "9223372036854775.808us"'],
    ["9223372036854ms775us808ns", "out_of_range", 'time: invalid duration "9223372036854ms775us808ns"'],
  ])("refuses %j: %s, %s", (input, code, message) => {
    const error = (() => {
      try {
        parseGoDurationNs(input);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(GoDurationError);
    expect([(error as GoDurationError).code, (error as GoDurationError).message]).toEqual([code, message]);
    expect(parseGoDuration(input)).toBeUndefined();
  });
});
