import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { job, useAgent } from "./support.js";

const ROOT = "00000000-0000-4000-8000-0000000000aa";
const NAMESPACES = ["default", "team-a", "team-b", "prod", "prod-eu"];

const agent = useAgent({ acl: { enabled: true, bootstrapToken: ROOT }, placementDelayMs: 60_000, namespaces: NAMESPACES.slice(1).map((Name) => ({ Name })) });
const root = { "x-svc-token": ROOT };

beforeAll(async () => {
  for (const namespace of NAMESPACES) {
    for (const id of ["one", "two"]) {
      const response = await agent.put(`/v1/jobs?namespace=${namespace}`, { Job: job(`${namespace}-${id}`) }, { headers: root });
      expect(response.status).toBe(200);
    }
  }
});

/** One namespace rule of a random policy: a name (or glob) and what it grants. */
const ruleArb = fc.record({
  target: fc.constantFrom(...NAMESPACES, "nowhere"),
  grant: fc.constantFrom<{ policy?: string; capabilities?: string[] }>(
    { policy: "read" },
    { policy: "write" },
    { policy: "deny" },
    { policy: "scale" },
    { capabilities: ["list-jobs"] },
    { capabilities: ["read-job"] },
    { capabilities: ["deny"] },
  ),
});

/**
 * The model: a namespace is listable when the merged rules of its exact name grant list-jobs
 * and none denies (read and write include list-jobs; scale does not).
 */
function listable(rules: { target: string; grant: { policy?: string; capabilities?: string[] } }[], namespace: string): boolean {
  const granted = new Set<string>();
  for (const { target, grant } of rules.filter((rule) => rule.target === namespace)) {
    if (grant.policy === "deny" || grant.capabilities?.includes("deny")) return false;
    if (grant.policy === "read" || grant.policy === "write") granted.add("list-jobs");
    for (const capability of grant.capabilities ?? []) granted.add(capability);
  }
  return granted.has("list-jobs");
}

function hcl(rules: { target: string; grant: { policy?: string; capabilities?: string[] } }[]): string {
  return rules
    .map(({ target, grant }) => {
      const body = grant.policy !== undefined ? `policy = "${grant.policy}"` : `capabilities = [${grant.capabilities!.map((c) => `"${c}"`).join(", ")}]`;
      return `namespace "${target}" {\n  ${body}\n}`;
    })
    .join("\n");
}

let run = 0;

describe("ACL properties", () => {
  it("lists, with namespace=*, exactly the jobs of the namespaces a token's policies permit", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(ruleArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }), async (policies) => {
        run++;
        const names = policies.map((_, i) => `p${run}-${i}`);
        for (const [i, rules] of policies.entries()) {
          const response = await agent.put(`/v1/acl/policy/${names[i]}`, { Name: names[i], Rules: hcl(rules) }, { headers: root });
          expect(response.status, response.text).toBe(200);
        }
        const created = await agent.put("/v1/acl/token", { Name: `t${run}`, Type: "client", Policies: names }, { headers: root });
        const secret = created.json<{ SecretID: string }>().SecretID;
        const rules = policies.flat();
        const permitted = NAMESPACES.filter((namespace) => listable(rules, namespace));
        const grantsAnywhere = [...NAMESPACES, "nowhere"].some((namespace) => listable(rules, namespace));

        const response = await agent.get("/v1/jobs?namespace=*", { headers: { "x-svc-token": secret } });
        if (!grantsAnywhere) {
          expect(response.status).toBe(403);
          return;
        }
        expect(response.status).toBe(200);
        const listed = response.json<{ Namespace: string; ID: string }[]>();
        expect([...new Set(listed.map((stub) => stub.Namespace))].sort()).toEqual([...permitted].sort());
        expect(listed).toHaveLength(permitted.length * 2);
        for (const namespace of NAMESPACES) {
          const single = await agent.get(`/v1/jobs?namespace=${namespace}`, { headers: { "x-svc-token": secret } });
          expect(single.status).toBe(permitted.includes(namespace) ? 200 : 403);
        }
      }),
      { numRuns: 60 },
    );
  });
});
