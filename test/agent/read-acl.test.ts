/**
 * The reads with ACLs on: `read-job` in the namespace for jobs, allocations, evaluations and
 * deployments, `node:read` for nodes, nothing for the status endpoints. A token for namespace
 * `a` never sees a row of `b`: not in a list (with `namespace=*` or a filter probing for it), and
 * not through a read by ID, whose answer for one of `b`'s rows is byte for byte the answer for an
 * ID that does not exist (status, text and index).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { job, send, settled, useAgent, type Response } from "./support.js";

const ROOT = "00000000-0000-4000-8000-0000000000a0";
const A_READER = "00000000-0000-4000-8000-0000000000a1";
const NODE_READER = "00000000-0000-4000-8000-0000000000a2";
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

const agent = useAgent({
  placementDelayMs: 60_000,
  nodes: 1,
  namespaces: [{ Name: "a" }, { Name: "b" }],
  acl: {
    enabled: true,
    bootstrapToken: ROOT,
    policies: [
      { Name: "a-read", Rules: 'namespace "a" { policy = "read" }' },
      { Name: "node-read", Rules: 'node { policy = "read" }' },
    ],
    tokens: [
      { SecretID: A_READER, Name: "a reader", Type: "client", Policies: ["a-read"] },
      { SecretID: NODE_READER, Name: "node reader", Type: "client", Policies: ["node-read"] },
    ],
  },
});

const as = (token: string, path: string) => agent.get(path, { headers: { "x-svc-token": token } });
type Item = Record<string, unknown> & { ID: string; Namespace: string };
const items = (response: Response): Item[] => {
  expect(response.status, response.text).toBe(200);
  return response.json<Item[]>();
};
/** What a client can tell from an answer. */
const seen = (response: Response) => [response.status, response.text, response.headers["x-svc-index"]];

/** One row of each kind in each namespace (as the root token lists them). */
const rows: Record<"allocation" | "evaluation" | "deployment", Record<"a" | "b", Item>> = {} as never;

beforeAll(async () => {
  // b first: its rows are not the latest of their tables, so an answer at their own index would differ from the unknown ID's.
  for (const namespace of ["b", "a"]) {
    const registered = await send(`${agent.url}/v1/jobs?namespace=${namespace}`, { method: "PUT", headers: { "x-svc-token": ROOT }, body: JSON.stringify({ Job: job(`job-${namespace}`) }) });
    expect(registered.status, registered.text).toBe(200);
  }
  await settled(agent.url);
  for (const [kind, path] of [["allocation", "/v1/allocations"], ["evaluation", "/v1/evaluations"], ["deployment", "/v1/deployments"]] as const) {
    const all = items(await as(ROOT, `${path}?namespace=*`));
    rows[kind] = { a: all.find((row) => row.Namespace === "a")!, b: all.find((row) => row.Namespace === "b")! };
  }
});

describe("a token that may read namespace a", () => {
  it.each(["/v1/allocations", "/v1/evaluations"])("lists only a's rows of %s with namespace=*, and a filter cannot find b's", async (path) => {
    expect(new Set(items(await as(A_READER, `${path}?namespace=*`)).map((row) => row.Namespace))).toEqual(new Set(["a"]));
    expect(items(await as(A_READER, `${path}?namespace=*&filter=${encodeURIComponent('JobID == "job-b"')}`))).toEqual([]);
    expect(items(await as(A_READER, `${path}?namespace=a`)).length).toBeGreaterThan(0);
    expect(seen(await as(A_READER, `${path}?namespace=b`))).toEqual([403, "Permission denied", undefined]);
    expect((await as(A_READER, path)).status).toBe(403);
    expect((await agent.get(`${path}?namespace=a`)).status).toBe(403);
  });

  it("reads a's job and its parts in namespace a, and nothing of b's", async () => {
    for (const part of ["", "/summary", "/allocations", "/evaluations", "/deployments", "/deployment"]) {
      expect((await as(A_READER, `/v1/job/job-a${part}?namespace=a`)).status).toBe(200);
      expect(seen(await as(A_READER, `/v1/job/job-b${part}?namespace=b`))).toEqual([403, "Permission denied", undefined]);
      // In a namespace it may read, b's job is not there.
      expect((await as(A_READER, `/v1/job/job-b${part}?namespace=a`)).text).toBe(part === "" || part === "/summary" ? "job not found" : part === "/deployment" ? "null" : "[]");
    }
  });

  it("finds a's allocation by ID, and b's is answered exactly as an allocation that does not exist", async () => {
    expect((await as(A_READER, `/v1/allocation/${rows.allocation.a.ID}`)).status).toBe(200);
    const hidden = await as(A_READER, `/v1/allocation/${rows.allocation.b.ID}`);
    expect(seen(hidden)).toEqual(seen(await as(A_READER, `/v1/allocation/${UNKNOWN_ID}`)));
    expect(hidden.status).toBe(404);
    expect(hidden.text).toBe("alloc not found");
    expect((await as(ROOT, `/v1/allocation/${rows.allocation.b.ID}`)).status).toBe(200);
  });

  it.each([
    ["evaluation", "eval not found"],
    ["deployment", "deployment not found"],
  ] as const)("reads a's %s with namespace=a; b's is answered as one that does not exist (the reference's 403 would tell it exists)", async (kind, text) => {
    expect((await as(A_READER, `/v1/${kind}/${rows[kind].a.ID}?namespace=a`)).status).toBe(200);
    const hidden = await as(A_READER, `/v1/${kind}/${rows[kind].b.ID}?namespace=a`);
    expect(seen(hidden)).toEqual(seen(await as(A_READER, `/v1/${kind}/${UNKNOWN_ID}?namespace=a`)));
    expect([hidden.status, hidden.text]).toEqual([404, text]);
    // The request's namespace is checked first, as the reference checks it.
    expect(seen(await as(A_READER, `/v1/${kind}/${rows[kind].b.ID}?namespace=b`))).toEqual([403, "Permission denied", undefined]);
    expect((await as(A_READER, `/v1/${kind}/${rows[kind].a.ID}`)).status).toBe(403);
  });
});

describe("nodes and status", () => {
  it("need node:read for the nodes, and nothing for the status endpoints", async () => {
    expect((await as(A_READER, "/v1/nodes")).status).toBe(403);
    const [node] = items(await as(NODE_READER, "/v1/nodes"));
    expect((await as(A_READER, `/v1/node/${node!.ID}`)).status).toBe(403);
    expect((await as(NODE_READER, `/v1/node/${node!.ID}`)).status).toBe(200);
    // The node list needs no namespace rights, and its namespace parameter is not looked at.
    expect(items(await as(NODE_READER, "/v1/nodes?namespace=b"))).toHaveLength(1);
    for (const path of ["/v1/status/leader", "/v1/status/peers", "/v1/regions"]) {
      expect((await agent.get(path)).status).toBe(200);
      expect((await as(UNKNOWN_ID, path)).status).toBe(200);
    }
  });
});
