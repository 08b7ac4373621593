/**
 * Every route of the reference's HTTP server, called against the agent: each is served, or
 * answered `404 the mini-agent does not simulate …`, never the empty 404 of a path the reference
 * does not have. The reference's routes are held to the list kept beside this file
 * (`reference-mux.txt`: the mux registrations of `command/agent/http.go` at the pinned commit),
 * and docs/agent.md's route table ("## Endpoints") to what the agent serves, in both directions.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { ENTERPRISE_ROUTES, REFERENCE_ROUTES } from "../../src/server/http/unserved-routes.js";
import { useAgent } from "./support.js";

/** What a request was answered: served (any status but the two below), named as not simulated, or the empty 404. */
type Answer = "served" | "not simulated" | "empty 404";

/** The methods a route is tried with, until one is served. */
const METHODS = ["GET", "PUT", "POST", "DELETE"] as const;

/**
 * Sends one request and classifies its answer. A served answer is not read further (the event
 * stream and blocking queries never end on their own); a 404's body is read whole.
 */
function classify(base: string, method: string, path: string): Promise<{ answer: Answer; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}${path}`, { method, headers: method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" } }, (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 404) {
        response.destroy();
        resolve({ answer: "served", status, body: "" });
        return;
      }
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const answer: Answer = body === "" ? "empty 404" : body.startsWith("the mini-agent does not simulate ") ? "not simulated" : "served";
        resolve({ answer, status, body });
      });
      response.on("error", reject);
    });
    outgoing.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" ? undefined : reject(error)));
    outgoing.end(method === "GET" || method === "DELETE" ? undefined : "{}");
  });
}

/** A concrete path for a route pattern (`:name` one segment, `*` the rest) or a documented path (`<id>`). */
function concrete(pattern: string): string {
  return pattern
    .replace(/\/:version\b|\/<version>/g, "/1")
    .replace(/\/:[a-z]+|\/<[^>]+>/g, "/00000000-0000-4000-8000-0000000000aa")
    .replace(/\/\*$/, "/00000000-0000-4000-8000-0000000000aa");
}

/** A pattern or documented path with its parameters made anonymous, to compare the two: `/v1/job/:/plan`. */
function shape(pattern: string): string {
  return pattern.replace(/\/:[A-Za-z]+|\/<[^>]+>/g, "/:").replace(/\/\*$/, "/:");
}

/** The reference's mux patterns, from the kept list: the community edition's, and its enterprise ones. */
const MUX = readFileSync(new URL("reference-mux.txt", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line !== "" && !line.startsWith("#"))
  .map((line) => ({ pattern: line.split(" ")[0]!, enterprise: line.endsWith(" enterprise") }));

/** The rows of docs/agent.md's route table: each documented method with each path of the row. */
const DOCUMENTED: { method: string; path: string }[] = (() => {
  const text = readFileSync(new URL("../../docs/agent.md", import.meta.url), "utf8");
  const start = text.indexOf("\n## Endpoints\n");
  const table = text.slice(start, text.indexOf("\n## ", start + 1));
  const rows: { method: string; path: string }[] = [];
  for (const line of table.split("\n")) {
    const cells = /^\| ([^|]+) \| ([^|]+) \|/.exec(line);
    if (cells === null || !cells[2]!.includes("`/")) continue;
    const methods = cells[1]!.trim() === "any" ? ["GET"] : [...cells[1]!.matchAll(/`([A-Z]+)`/g)].map((match) => match[1]!);
    // A row may shorten its later paths to their last segment (`/v1/node/pool/<name>/nodes`, `/jobs`).
    let previous: string | undefined;
    for (const [, written] of cells[2]!.matchAll(/`(\/[^`]*)`/g)) {
      const path = previous?.startsWith("/v1/") && !written!.startsWith("/v1/") ? previous.slice(0, previous.lastIndexOf("/")) + written : written!;
      for (const method of methods) rows.push({ method, path });
      previous = path;
    }
  }
  return rows;
})();

/** Whether a mux pattern (`/v1/job/` takes every path under it) covers a route pattern of the agent's table. */
const covers = (mux: string, route: string) => (mux.endsWith("/") ? route.startsWith(mux) : route === mux);

describe("the reference's routes, as the agent knows them", () => {
  it("holds every route the reference registers, and none it does not", () => {
    expect(MUX.length).toBeGreaterThan(100);
    const community = MUX.filter((entry) => !entry.enterprise).map((entry) => entry.pattern);
    const enterprise = MUX.filter((entry) => entry.enterprise).map((entry) => entry.pattern);
    expect(community.filter((mux) => !REFERENCE_ROUTES.some((route) => covers(mux, route)))).toEqual([]);
    expect(REFERENCE_ROUTES.filter((route) => !community.some((mux) => covers(mux, route)))).toEqual([]);
    expect(enterprise.filter((mux) => !ENTERPRISE_ROUTES.some((route) => covers(mux, route)))).toEqual([]);
    expect(ENTERPRISE_ROUTES.filter((route) => !enterprise.some((mux) => covers(mux, route)))).toEqual([]);
  });

  it("reads the route table of docs/agent.md", () => {
    expect(DOCUMENTED.length).toBeGreaterThan(80);
    expect(DOCUMENTED).toContainEqual({ method: "GET", path: "/v1/job/<id>" });
    expect(DOCUMENTED).toContainEqual({ method: "GET", path: "/v1/node/pool/<name>/jobs" });
  });
});

describe("every route of the reference, called against the agent", () => {
  const agent = useAgent();

  /** The first method that is served, or the answers of all. */
  async function answersOf(pattern: string) {
    const answers: { method: string; answer: Answer; status: number; body: string }[] = [];
    for (const method of METHODS) {
      const answer = await classify(agent.url, method, concrete(pattern));
      answers.push({ method, ...answer });
      if (answer.answer === "served") break;
    }
    return answers;
  }

  it.each(REFERENCE_ROUTES.map((route) => [route]))("%s is served or named as not simulated", async (pattern) => {
    const answers = await answersOf(pattern);
    expect(answers.every(({ answer }) => answer === "empty 404"), JSON.stringify(answers)).toBe(false);
    for (const { answer, body } of answers) if (answer === "not simulated") expect(body).toMatch(/^the mini-agent does not simulate [A-Z]+ \/\S+$/);
    if (answers.at(-1)!.answer === "served") {
      const documented = DOCUMENTED.some(({ path }) => shape(path) === shape(pattern) || (pattern.endsWith("/*") && path.startsWith(pattern.slice(0, -1))));
      expect(documented, `${pattern} is served; docs/agent.md's route table does not name it`).toBe(true);
    }
  });

  it.each(DOCUMENTED.filter(({ path }) => path.startsWith("/v1/")).map(({ method, path }) => [method, path]))("%s %s, documented, is served", async (method, path) => {
    const { answer, body } = await classify(agent.url, method, concrete(path));
    expect(answer, body).toBe("served");
  });

  it.each(ENTERPRISE_ROUTES.map((route) => [route]))("the enterprise route %s answers 501 as the community edition", async (pattern) => {
    const { status } = await classify(agent.url, "GET", concrete(pattern));
    expect(status).toBe(501);
  });
});
