/**
 * Every list goes through the one pipeline (region → token → namespaces → filter → blocking →
 * page), each with what the reference's RPC honours: `/v1/acl/tokens` pages and filters as the
 * reference's paginator does (creation order, `<CreateIndex>.<AccessorID>` tokens, or accessor
 * order and bare accessor tokens with a prefix; the filter sees the whole token), while
 * `/v1/namespaces` and `/v1/acl/policies` have no paginator there, so they ignore `filter`,
 * `per_page`, `next_token` and `reverse` and honour `prefix`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useAgent } from "./support.js";

const ROOT = "5b8f0c9e-3d2a-4c1b-9e8f-7a6b5c4d3e2f";
const agent = useAgent({
  acl: {
    enabled: true,
    bootstrapToken: ROOT,
    policies: [
      { Name: "readers", Rules: 'namespace "default" { policy = "read" }' },
      { Name: "writers", Rules: 'namespace "default" { policy = "write" }' },
    ],
    tokens: [{ Name: "reader", Type: "client", Policies: ["readers"], SecretID: "11111111-2222-4333-8444-555555555555" }],
  },
  namespaces: [{ Name: "prod" }, { Name: "preview" }, { Name: "staging" }],
});
const as = (path: string, token = ROOT) => agent.get(path, { headers: { "x-svc-token": token } });

interface TokenStub {
  AccessorID: string;
  Name: string;
  CreateIndex: number;
}

let tokens: TokenStub[] = [];

beforeAll(async () => {
  for (const name of ["t1", "t2", "t3", "t4"]) {
    const response = await agent.get("/v1/acl/token", { method: "PUT", headers: { "x-svc-token": ROOT }, body: JSON.stringify({ Name: name, Type: "management" }) });
    expect(response.status, response.text).toBe(200);
  }
  tokens = (await as("/v1/acl/tokens")).json<TokenStub[]>();
});

describe("GET /v1/acl/tokens", () => {
  it("lists in creation order and pages with <CreateIndex>.<AccessorID> tokens, forwards and in reverse", async () => {
    expect(tokens.map((token) => token.CreateIndex)).toEqual([...tokens.map((token) => token.CreateIndex)].sort((a, b) => a - b));
    expect(tokens.length).toBeGreaterThanOrEqual(6);
    const first = await as("/v1/acl/tokens?per_page=2");
    expect(first.json<TokenStub[]>()).toEqual(tokens.slice(0, 2));
    expect(first.headers["x-svc-nexttoken"]).toBe(`${tokens[2]!.CreateIndex}.${tokens[2]!.AccessorID}`);
    const second = await as(`/v1/acl/tokens?per_page=2&next_token=${first.headers["x-svc-nexttoken"]}`);
    expect(second.json<TokenStub[]>()).toEqual(tokens.slice(2, 4));
    const reversed = await as(`/v1/acl/tokens?per_page=2&reverse=true&next_token=${tokens[3]!.CreateIndex}.${tokens[3]!.AccessorID}`);
    expect(reversed.json<TokenStub[]>()).toEqual([tokens[3], tokens[2]]);
    expect(reversed.headers["x-svc-nexttoken"]).toBe(`${tokens[1]!.CreateIndex}.${tokens[1]!.AccessorID}`);
  });

  it("filters on the whole token, the secret included (the list itself never shows it)", async () => {
    const named = await as(`/v1/acl/tokens?filter=${encodeURIComponent('Name == "t3"')}`);
    expect(named.json<TokenStub[]>().map((token) => token.Name)).toEqual(["t3"]);
    const bySecret = await as(`/v1/acl/tokens?filter=${encodeURIComponent(`SecretID == "${ROOT}"`)}`);
    expect(bySecret.json<Record<string, unknown>[]>().map((token) => token.Name)).toEqual(["Bootstrap Token"]);
    expect(bySecret.text).not.toContain(ROOT);
    const bad = await as(`/v1/acl/tokens?filter=${encodeURIComponent("Name ==")}`);
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^failed to create result paginator: failed to read filter expression: /);
  });

  it("with an accessor prefix, lists by accessor with bare accessor tokens", async () => {
    const byAccessor = [...tokens].sort((a, b) => (a.AccessorID < b.AccessorID ? -1 : 1));
    const prefix = byAccessor[0]!.AccessorID.slice(0, 2);
    const expected = byAccessor.filter((token) => token.AccessorID.startsWith(prefix));
    const response = await as(`/v1/acl/tokens?prefix=${prefix}&per_page=1`);
    expect(response.json<TokenStub[]>()).toEqual(expected.slice(0, 1));
    expect(response.headers["x-svc-nexttoken"]).toBe(expected[1]?.AccessorID);
    const odd = await as("/v1/acl/tokens?prefix=abc");
    expect([odd.status, odd.text]).toEqual([400, 'Invalid ID prefix "abc": a prefix must have an even number of hexadecimal characters']);
  });

  it("is for management tokens only, and answers for the agent's region only", async () => {
    expect((await as("/v1/acl/tokens", "11111111-2222-4333-8444-555555555555")).status).toBe(403);
    const elsewhere = await as("/v1/acl/tokens?region=mars");
    expect([elsewhere.status, elsewhere.text]).toEqual([500, "No path to region"]);
  });
});

describe("GET /v1/namespaces and /v1/acl/policies", () => {
  it.each([
    ["/v1/namespaces", ["default", "preview", "prod", "staging"], "pr", ["preview", "prod"]],
    ["/v1/acl/policies", ["readers", "writers"], "w", ["writers"]],
  ])("%s honours prefix and ignores filter, per_page, next_token and reverse, as the reference", async (path, all, prefix, withPrefix) => {
    const names = async (query: string) => (await as(`${path}${query}`)).json<{ Name: string }[]>().map((item) => item.Name);
    expect(await names("")).toEqual(all);
    expect(await names(`?prefix=${prefix}`)).toEqual(withPrefix);
    expect(await names(`?per_page=1&next_token=zzz&reverse=true&filter=${encodeURIComponent("Name == nope")}`)).toEqual(all);
    const elsewhere = await as(`${path}?region=mars`);
    expect([elsewhere.status, elsewhere.text]).toEqual([500, "No path to region"]);
  });

  it("shows a client token only what it may see", async () => {
    const reader = "11111111-2222-4333-8444-555555555555";
    expect((await as("/v1/namespaces", reader)).json<{ Name: string }[]>().map((item) => item.Name)).toEqual(["default"]);
    expect((await as("/v1/acl/policies", reader)).json<{ Name: string }[]>().map((item) => item.Name)).toEqual(["readers"]);
  });
});
