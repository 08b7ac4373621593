/**
 * Search: `PUT /v1/search` (IDs by prefix, per context) and `PUT /v1/search/fuzzy` (names holding a
 * text, with their scope), with the reference's truncation, order, limits and ACL rules, over real
 * sockets.
 */
import { describe, expect, it } from "vitest";
import { SEARCH_LIMIT_QUERY, SEARCH_LIMIT_RESULTS, SEARCH_TRUNCATE_LIMIT } from "../../src/server/domain/search.js";
import { eventually, job, send, useAgent } from "./support.js";

type Item = Record<string, any>;

describe("searching", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2, namespaces: [{ Name: "prod" }] });
  const search = async (path: string, body: unknown, query = "") => {
    const response = await agent.put(`${path}${query}`, body);
    return { status: response.status, text: response.text, body: response.status === 200 ? response.json<Item>() : undefined, index: response.headers["x-svc-index"] };
  };

  it("finds jobs by ID prefix, and truncates a context past 20", async () => {
    for (let i = 0; i < SEARCH_TRUNCATE_LIMIT + 1; i++) await agent.register(job(`many-${String(i).padStart(2, "0")}`));
    await agent.register(job("other"));
    const found = await search("/v1/search", { Prefix: "many-", Context: "jobs" });
    expect(found.status, found.text).toBe(200);
    expect(found.body!.Matches.jobs).toHaveLength(SEARCH_TRUNCATE_LIMIT);
    expect(found.body!.Matches.jobs[0]).toBe("many-00");
    expect(found.body!.Truncations).toEqual({ jobs: true });
    expect(found.body!.Index).toBe(Number(found.index));
    const one = await search("/v1/search", { Prefix: "oth", Context: "jobs" });
    expect(one.body!).toMatchObject({ Matches: { jobs: ["other"] }, Truncations: { jobs: false }, KnownLeader: true });
  });

  it("searches every context with all, leaving out the UUID contexts for a prefix no UUID has", async () => {
    const found = await search("/v1/search", { Prefix: "oth", Context: "all" });
    expect(Object.keys(found.body!.Matches).sort()).toEqual(["host_volumes", "jobs", "namespaces", "node_pools", "plugins", "scaling_policy", "vars", "volumes"]);
    expect(found.body!.Matches.jobs).toEqual(["other"]);
    const allocs = await eventually(async () => {
      await agent.agent.clock.advance("1s");
      const list = (await agent.get("/v1/job/other/allocations")).json<Item[]>();
      return list.length > 0 ? list : undefined;
    });
    const id = allocs[0]!.ID as string;
    const byId = await search("/v1/search", { Prefix: id.slice(0, 5), Context: "all" });
    expect(byId.body!.Matches.allocs).toContain(id);
    expect(byId.body!.Matches).toHaveProperty("evals");
  });

  it("matches names fuzzily, with their scope, best first", async () => {
    await agent.register(
      job("fuzzy", {
        Name: "fuzzy-web",
        TaskGroups: [{ Name: "webgroup", Services: [{ Name: "websvc", Provider: "nomad" }], Tasks: [{ Name: "server", Driver: "docker", Config: { image: "nginx:web" } }] }],
      }),
      "?namespace=prod",
    );
    const found = await search("/v1/search/fuzzy", { Text: "WEB", Context: "all" }, "?namespace=prod");
    expect(found.status, found.text).toBe(200);
    expect(found.body!.Matches).toMatchObject({
      jobs: [{ ID: "fuzzy-web", Scope: ["prod", "fuzzy"] }],
      groups: [{ ID: "webgroup", Scope: ["prod", "fuzzy"] }],
      services: [{ ID: "websvc", Scope: ["prod", "fuzzy", "webgroup"] }],
      images: [{ ID: "nginx:web", Scope: ["prod", "fuzzy", "webgroup", "server"] }],
    });
    expect(found.body!.Truncations.jobs).toBe(false);
    // The default namespace's jobs are not in prod's answer.
    expect(JSON.stringify(found.body!.Matches)).not.toContain("many-");
  });

  it("looks at the first 20 rows of a context only, and says so", async () => {
    const found = await search("/v1/search/fuzzy", { Text: "many", Context: "jobs" });
    expect(found.body!.Matches.jobs).toHaveLength(SEARCH_LIMIT_QUERY);
    expect(found.body!.Truncations.jobs).toBe(true);
  });

  it("answers at most 100 matches a context, and says so", async () => {
    const groups = Array.from({ length: SEARCH_LIMIT_RESULTS + 1 }, (_, i) => ({ Name: `wide${String(i).padStart(3, "0")}`, Count: 0, Tasks: [{ Name: "t", Driver: "mock" }] }));
    await agent.register(job("widejob", { TaskGroups: groups }), "?namespace=prod");
    const found = await search("/v1/search/fuzzy", { Text: "wide", Context: "jobs" }, "?namespace=prod");
    expect(found.status, found.text).toBe(200);
    expect(found.body!.Matches.groups).toHaveLength(SEARCH_LIMIT_RESULTS);
    expect(found.body!.Matches.groups[0]).toEqual({ ID: "wide000", Scope: ["prod", "widejob"] });
    expect(found.body!.Truncations.groups).toBe(true);
  });

  it.each([
    ["a fuzzy text too short", "/v1/search/fuzzy", { Text: "a", Context: "all" }, 400, "fuzzy search query must be at least 2 characters, got 1"],
    ["an unknown context", "/v1/search", { Prefix: "a", Context: "widgets" }, 400, "context must be one of [allocs jobs nodes node_pools evals deployment plugins volumes scaling_policy vars namespaces host_volumes] or 'all' for all contexts; got \"widgets\""],
    ["a body that is not the request", "/v1/search", "[]", 400, "json: cannot unmarshal array into Go value of type structs.SearchRequest"],
  ])("answers %s with a 400", async (_name, path, body, status, text) => {
    const found = await search(path, body);
    expect({ status: found.status, text: found.text }).toEqual({ status, text });
  });

  it("answers GET with 405", async () => {
    expect((await agent.get("/v1/search")).status).toBe(405);
  });

  it.each([
    ["node pools by name, the built-in ones among them", "node_pools", "de", ["default", "dev-pool"]],
    ["variables by path, in every namespace", "vars", "app/", ["app/one", "app/one", "app/two"]],
  ])("finds %s", async (_what, context, prefix, expected) => {
    expect((await agent.put("/v1/node/pool/dev-pool", { Name: "dev-pool" })).status).toBe(200);
    for (const [namespace, path] of [["default", "app/one"], ["prod", "app/one"], ["default", "app/two"], ["default", "other"]]) {
      const written = await agent.put(`/v1/var/${path}?namespace=${namespace}`, { Items: { k: "v" } });
      expect(written.status, written.text).toBe(200);
    }
    const found = await search("/v1/search", { Prefix: prefix, Context: context });
    expect(found.status, found.text).toBe(200);
    expect(found.body!.Matches).toEqual({ [context]: expected });
    expect(found.body!.Truncations).toEqual({ [context]: false });
  });

  it("finds the scaling policies of the namespace's jobs by ID", async () => {
    const scaled = job("scaled", { TaskGroups: [{ Name: "g", Count: 1, Scaling: { Min: 1, Max: 3, Policy: {} }, Tasks: [{ Name: "t", Driver: "mock" }] }] });
    expect((await agent.register(scaled)).EvalID).toBeTruthy();
    const [policy] = (await agent.get("/v1/scaling/policies?job=scaled")).json<Item[]>();
    const found = await search("/v1/search", { Prefix: (policy!.ID as string).slice(0, 6), Context: "scaling_policy" });
    expect(found.body!.Matches).toEqual({ scaling_policy: [policy!.ID] });
    const elsewhere = await search("/v1/search", { Prefix: (policy!.ID as string).slice(0, 6), Context: "scaling_policy" }, "?namespace=prod");
    expect(elsewhere.body!.Matches).toEqual({ scaling_policy: null });
  });
});

describe("searching under ACLs", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000c0";
  const PROD_READER = "00000000-0000-4000-8000-0000000000c1";
  const VARS_LISTER = "00000000-0000-4000-8000-0000000000c2";
  const agent = useAgent({
    clock: "manual",
    placementDelayMs: 1000,
    nodes: 1,
    namespaces: [{ Name: "prod" }],
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "prod-read", Rules: 'namespace "prod" { policy = "read" }' },
        { Name: "vars-list", Rules: 'namespace "prod" {\n  policy = "read"\n  variables {\n    path "app/*" { capabilities = ["list"] }\n  }\n}\nnamespace "default" { policy = "read" }\nnamespace "prod-other" {\n  variables {\n    path "*" { capabilities = ["list"] }\n  }\n}' },
      ],
      tokens: [
        { SecretID: PROD_READER, Name: "prod reader", Type: "client", Policies: ["prod-read"] },
        { SecretID: VARS_LISTER, Name: "vars lister", Type: "client", Policies: ["vars-list"] },
      ],
    },
  });
  const as = (token: string, path: string, body: unknown) => send(`${agent.url}${path}`, { method: "PUT", headers: { "x-svc-token": token }, body: JSON.stringify(body) });

  it("refuses a context the token may not read, and leaves out of a wildcard search the namespaces it may not read", async () => {
    for (const namespace of ["default", "prod"]) {
      const registered = await send(`${agent.url}/v1/jobs?namespace=${namespace}`, { method: "PUT", headers: { "x-svc-token": ROOT }, body: JSON.stringify({ Job: job(`secret-${namespace}`) }) });
      expect(registered.status, registered.text).toBe(200);
    }
    expect((await as(PROD_READER, "/v1/search", { Prefix: "secret", Context: "jobs" })).status).toBe(403);
    expect((await as(PROD_READER, "/v1/search", { Prefix: "secret", Context: "nodes", Namespace: "prod" })).status).toBe(403);
    expect((await as(PROD_READER, "/v1/search?namespace=prod", { Prefix: "secret", Context: "jobs" })).json<Item>().Matches.jobs).toEqual(["secret-prod"]);
    const fuzzy = (await as(PROD_READER, "/v1/search/fuzzy?namespace=*", { Text: "secret", Context: "jobs" })).json<Item>();
    expect(fuzzy.Matches.jobs).toEqual([{ ID: "secret-prod", Scope: ["prod", "secret-prod"] }]);
    const all = (await as(PROD_READER, "/v1/search?namespace=prod", { Prefix: "", Context: "all" })).json<Item>();
    expect(all.Matches).not.toHaveProperty("nodes");
    expect(all.Matches.namespaces).toEqual(["prod"]);
    // No node pool rule, no variables rule: those contexts are refused alone and left out of all.
    expect(all.Matches).not.toHaveProperty("node_pools");
    expect(all.Matches).not.toHaveProperty("vars");
    expect(all.Matches).toHaveProperty("scaling_policy");
    expect((await as(PROD_READER, "/v1/search?namespace=prod", { Prefix: "", Context: "node_pools" })).status).toBe(403);
    expect((await as(PROD_READER, "/v1/search?namespace=prod", { Prefix: "", Context: "vars" })).status).toBe(403);
    expect((await as(ROOT, "/v1/search", { Prefix: "", Context: "node_pools" })).json<Item>().Matches.node_pools).toEqual(["all", "default"]);
  });

  // A namespace the token reads but holds no variables rule in, and paths it may not list, stay out
  // of the matches (the paths of default's variables were matched: a token refused them everywhere else).
  it("finds only the variables' paths the token may list, whatever namespaces it reads", async () => {
    for (const [namespace, path] of [["default", "app/secret"], ["prod", "app/seen"], ["prod", "hidden"], ["prod-other", "app/other"]]) {
      const written = await send(`${agent.url}/v1/var/${path}?namespace=${namespace}`, { method: "PUT", headers: { "x-svc-token": ROOT }, body: JSON.stringify({ Items: { k: "v" } }) });
      expect(written.status, written.text).toBe(200);
    }
    const found = await as(VARS_LISTER, "/v1/search?namespace=prod", { Prefix: "", Context: "vars" });
    expect(found.status, found.text).toBe(200);
    expect(found.json<Item>().Matches).toEqual({ vars: ["app/other", "app/seen"] });
    // A namespace the token holds no variables rule in is refused; the rule of prod-other counts for
    // prod-other, not for a namespace its name begins with.
    expect((await as(VARS_LISTER, "/v1/search?namespace=default", { Prefix: "", Context: "vars" })).status).toBe(403);
    expect((await as(VARS_LISTER, "/v1/search?namespace=prod-", { Prefix: "", Context: "vars" })).status).toBe(403);
  });
});
