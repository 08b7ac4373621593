/**
 * The pages PostgreSQL cuts are the pages the agent cuts in memory, for every request.
 *
 * On PostgreSQL, a consistent list read is answered by the database (the filter pushed down with
 * `bexpr/sql`, keyset pagination on the endpoint's order, re-checks where the translation is not
 * exact), and a `?stale` read by the agent's copy of the state, through the very code of the
 * in-memory store (`page.ts`). At rest (no write between them), the two must give the same status,
 * body, index and next token, whatever the namespace, prefix, filter, page size, direction and
 * `next_token` (one that parses as the endpoint's tokens or not). Random requests over jobs and
 * deployments whose namespaces, IDs and values are chosen to meet the orders' traps (`a-b` before
 * `a.x` by namespace but not by token, int64 times beyond 2^53, filters the database decides and
 * filters it leaves to the re-check, filters that fail on some rows).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { job, ON_POSTGRES, settled, useAgent, type TestAgent } from "./support.js";

const NAMESPACES = ["default", "a", "a-b", "b"] as const;

const FILTERS = [
  "",
  'Status == "running"',
  'Status != "running"',
  "Priority == 70",
  'Priority == 70 or Type == "batch"',
  '"dc2" in Datacenters',
  '"dc2" not in Datacenters and not Stop',
  'Meta.owner == "team-a"',
  'Meta["k8s-ns"] is empty',
  "Meta is empty",
  'Name matches "^web"',
  'Name matches "w.b|ap+i"',
  'ID contains "-"',
  "JobSummary.Summary.g.Starting == 1",
  "any TaskGroups as g { g.Count == 2 }",
  "SubmitTime != 9007199254740993",
  "SubmitTime == 9007199254740993",
  'Type == "service" and (Priority == 30 or Meta.tier == "gold")',
  'Priority == "high"',
  'Meta.owner matches "["',
] as const;

const DEPLOYMENT_FILTERS = ["", 'Status == "running"', 'JobID matches "^web"', "JobVersion == 1", 'TaskGroups.g.DesiredTotal == 2', 'Status contains "succ"'] as const;

/** How many compared answers had rows: the property must not pass on refusals and empty pages alone. */
let withRows = 0;
let compared = 0;

/** The answer as a client sees it: what must be equal. */
async function answer(agent: TestAgent, path: string): Promise<[number, string | undefined, string | undefined, string]> {
  const response = await agent.get(path);
  compared++;
  if (response.status === 200 && response.text.startsWith("[{")) withRows++;
  return [response.status, response.headers["x-svc-index"], response.headers["x-svc-nexttoken"], response.text];
}

describe.runIf(ON_POSTGRES)("pages cut by PostgreSQL", () => {
  // One metrics interval for the whole file: the counters then add up every request's evaluations.
  // No cache of answers: each of the two reads computes its own (a cached one would answer both).
  const agent = useAgent({ placementDelayMs: 60_000, metrics: { intervalMs: 2 ** 40, retentionMs: 2 ** 40 }, limits: { responseCacheBytes: 0 }, namespaces: NAMESPACES.filter((name) => name !== "default").map((Name) => ({ Name })) });
  const tokens: string[] = [];
  const deploymentTokens: string[] = [];

  it("are set up: jobs and deployments in every namespace", async () => {
    const ids = ["web", "web-2", "api", "x", "a.x", "zz", "wéb", "😀"];
    let n = 0;
    for (const namespace of NAMESPACES) {
      for (const id of ids.slice(0, 4 + (n % 4))) {
        n++;
        const fields: Record<string, unknown> = {
          Priority: [30, 50, 70][n % 3],
          Datacenters: n % 2 === 0 ? ["dc1", "dc2"] : ["dc1"],
          Type: n % 5 === 0 ? "batch" : "service",
          Meta: n % 4 === 0 ? null : { owner: n % 3 === 0 ? "team-a" : "team-b", ...(n % 6 === 0 ? { tier: "gold", "k8s-ns": "" } : {}) },
          TaskGroups: [{ Name: "g", Count: 1 + (n % 3), Tasks: [{ Name: "t", Driver: "mock" }] }],
        };
        await agent.register(job(id, fields), `?namespace=${encodeURIComponent(namespace)}`);
        // A second version for some: their first deployment is cancelled by the newer one.
        if (n % 7 === 0) await agent.register(job(id, { ...fields, Priority: 90 }), `?namespace=${encodeURIComponent(namespace)}`);
      }
    }
    await settled(agent.url);
    const listed = (await agent.get("/v1/jobs?namespace=*")).json<{ Namespace: string; ID: string }[]>();
    tokens.push(...listed.map((item) => `${item.Namespace}.${item.ID}`));
    const deployments = (await agent.get("/v1/deployments?namespace=*")).json<{ ID: string; CreateIndex: number }[]>();
    deploymentTokens.push(...deployments.map((item) => `${item.CreateIndex}.${item.ID}`), ...deployments.map((item) => item.ID));
    expect(listed.length).toBeGreaterThan(15);
    expect(deployments.length).toBeGreaterThan(10);
  });

  /** A next token: one of the list's own, one near it, one that does not parse, or none. */
  const nextToken = (own: () => readonly string[]) =>
    fc.oneof(
      fc.constant(""),
      fc.nat().map((i) => own()[i % own().length]!),
      fc.nat().map((i) => `${own()[i % own().length]!}~`),
      fc.constantFrom("a", "a-b.", "a.x", "b.web", "default.zz", "7", "7.", "12.0", "x.y", "+3.a", "-1.z", "99999999999999999999.a"),
    );

  /** The consistent answer (cut by PostgreSQL) and the `?stale` one (cut in memory) of one request are the same. */
  const expectSamePages = async (list: string, request: { namespace: string; prefix: string; filter: string; perPage: number; reverse: boolean; nextToken: string }) => {
    const { namespace, prefix, filter, perPage, reverse, nextToken: next } = request;
    // A prefix goes with no filter: both together are a 400 (tested elsewhere), not a page.
    const query = new URLSearchParams({ namespace, ...(filter === "" ? { prefix } : { filter }), per_page: String(perPage), reverse: String(reverse), next_token: next });
    const path = `${list}?${query}`;
    expect(await answer(agent, path), path).toEqual(await answer(agent, `${path}&stale`));
  };

  it("equal the agent's own pages for jobs: status, body, index and next token", async () => {
    [withRows, compared] = [0, 0];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("*", ...NAMESPACES, "none"),
        fc.constantFrom("", "w", "web", "a", "😀"),
        fc.constantFrom(...FILTERS),
        fc.constantFrom(0, 1, 2, 3, 7),
        fc.boolean(),
        nextToken(() => tokens),
        async (namespace, prefix, filter, perPage, reverse, next) => {
          await expectSamePages("/v1/jobs", { namespace, prefix, filter, perPage, reverse, nextToken: next });
        },
      ),
      { numRuns: 250 },
    );
    expect(withRows / compared).toBeGreaterThan(0.25);
  });

  it("equal the agent's own pages for deployments, by creation and by ID prefix", async () => {
    [withRows, compared] = [0, 0];
    const ids = () => deploymentTokens.filter((token) => !token.includes("."));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("*", ...NAMESPACES),
        // A prefix and a next token of the same deployment, so that pages by ID prefix start inside the rows.
        fc.record({ pick: fc.nat(), prefixLength: fc.constantFrom(0, 0, 1, 2, 4), next: fc.constantFrom("none", "own", "near", "other") }),
        fc.constantFrom(...DEPLOYMENT_FILTERS),
        fc.constantFrom(0, 1, 2, 5),
        fc.boolean(),
        nextToken(() => deploymentTokens),
        async (namespace, { pick, prefixLength, next }, filter, perPage, reverse, other) => {
          const id = ids()[pick % ids().length]!;
          const prefix = id.slice(0, prefixLength % 2 === 1 ? prefixLength + 1 : prefixLength);
          const token = next === "none" ? "" : next === "own" ? id : next === "near" ? `${id.slice(0, 9)}` : other;
          await expectSamePages("/v1/deployments", { namespace, prefix, filter, perPage, reverse, nextToken: token });
        },
      ),
      { numRuns: 200 },
    );
    expect(withRows / compared).toBeGreaterThan(0.25);
  });

  it("decide in the database the filters bexpr/sql translates exactly (the agent evaluates none of their rows)", async () => {
    const evaluations = async () => {
      const document = (await agent.get("/v1/metrics")).json<{ Counters: { Name: string; Labels: Record<string, string>; Sum: number }[] }>();
      return document.Counters.find((counter) => counter.Name === "svc.svc.filter.evaluations" && counter.Labels["endpoint"] === "job")?.Sum ?? 0;
    };
    const before = await evaluations();
    const exact = await agent.get(`/v1/jobs?namespace=*&filter=${encodeURIComponent('Priority == 70 and "dc2" in Datacenters')}`);
    expect(exact.status).toBe(200);
    expect(await evaluations()).toBe(before);
    const rechecked = await agent.get(`/v1/jobs?namespace=*&filter=${encodeURIComponent('Name matches "w.b"')}`);
    expect(rechecked.status).toBe(200);
    expect(await evaluations()).toBeGreaterThan(before);
  });
});
