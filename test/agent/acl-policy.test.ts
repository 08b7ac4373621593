import { describe, expect, it } from "vitest";
import { parsePolicy, Permissions, PolicyError, NAMESPACE_POLICY_CAPABILITIES } from "../../src/server/domain/acl-policy.js";
import { goDurationText } from "../../src/go/duration.js";

async function permissions(...rules: string[]): Promise<Permissions> {
  return new Permissions(await Promise.all(rules.map(parsePolicy)));
}

describe("policy rules", () => {
  it("expands read, write, scale and deny as the reference does", () => {
    expect(NAMESPACE_POLICY_CAPABILITIES.read).toEqual([
      "list-jobs", "parse-job", "read-job", "csi-list-volume", "csi-read-volume", "read-job-scaling", "list-scaling-policies", "read-scaling-policy", "host-volume-read",
    ]);
    expect(NAMESPACE_POLICY_CAPABILITIES.write).toEqual([
      ...NAMESPACE_POLICY_CAPABILITIES.read!,
      "scale-job", "submit-job", "dispatch-job", "read-logs", "read-fs", "alloc-exec", "alloc-lifecycle", "csi-mount-volume", "csi-write-volume", "submit-recommendation", "host-volume-create",
    ]);
    expect(NAMESPACE_POLICY_CAPABILITIES.scale).toEqual(["list-scaling-policies", "read-scaling-policy", "read-job-scaling", "scale-job", "read-job", "submit-recommendation"]);
    expect(NAMESPACE_POLICY_CAPABILITIES.deny).toEqual(["deny"]);
  });

  it("adds the capabilities a capability implies", async () => {
    const parsed = await parsePolicy('namespace "x" { capabilities = ["host-volume-write"] }');
    expect(parsed.Namespaces![0]!.Capabilities).toEqual(["host-volume-write", "host-volume-register", "host-volume-create", "host-volume-delete", "host-volume-read"]);
  });

  it("accepts empty rules", async () => {
    expect((await parsePolicy("")).Namespaces).toBeNull();
  });

  it.each([
    ['namespace "x" { policy = "read" ', "Failed to parse ACL Policy"],
    ['agent { policy = "all" }', 'Invalid agent policy: &acl.AgentPolicy{Policy:"all"}'],
    ['plugin { policy = "scale" }', "Invalid plugin policy"],
    ['namespace "x" { policy = "list" }', "Invalid namespace policy"],
  ])("rejects %j", async (rules, message) => {
    await expect(parsePolicy(rules)).rejects.toThrow(PolicyError);
    await expect(parsePolicy(rules)).rejects.toThrow(message);
  });
});

describe("permissions", () => {
  it("prefers an exact namespace rule to any glob", async () => {
    const p = await permissions('namespace "prod" { policy = "read" }', 'namespace "*" { policy = "write" }');
    expect(p.allows("prod", "submit-job")).toBe(false);
    expect(p.allows("prod", "list-jobs")).toBe(true);
    expect(p.allows("dev", "submit-job")).toBe(true);
  });

  it("uses the closest matching glob", async () => {
    const p = await permissions('namespace "prod-*" { policy = "read" }', 'namespace "prod-eu-*" { policy = "write" }', 'namespace "*" { policy = "deny" }');
    expect(p.allows("prod-eu-1", "submit-job")).toBe(true);
    expect(p.allows("prod-us-1", "submit-job")).toBe(false);
    expect(p.allows("prod-us-1", "list-jobs")).toBe(true);
    expect(p.allows("staging", "list-jobs")).toBe(false);
  });

  it("lets a deny in any policy win over grants of the same namespace", async () => {
    const p = await permissions('namespace "prod" { policy = "write" }', 'namespace "prod" { capabilities = ["deny"] }');
    expect(p.allows("prod", "list-jobs")).toBe(false);
    expect(p.seesNamespace("prod")).toBe(false);
    const q = await permissions('namespace "prod" { policy = "deny" }', 'namespace "prod" { policy = "write" }');
    expect(q.allows("prod", "list-jobs")).toBe(false);
  });

  it("merges the capabilities of several policies", async () => {
    const p = await permissions('namespace "prod" { capabilities = ["list-jobs"] }', 'namespace "prod" { capabilities = ["submit-job"] }');
    expect(p.allows("prod", "list-jobs")).toBe(true);
    expect(p.allows("prod", "submit-job")).toBe(true);
    expect(p.allows("prod", "read-job")).toBe(false);
  });

  it("reads node permissions, deny winning", async () => {
    expect((await permissions('node { policy = "read" }')).nodeRead).toBe(true);
    expect((await permissions('node { policy = "write" }')).nodeRead).toBe(true);
    expect((await permissions('node { policy = "read" }', 'node { policy = "deny" }')).nodeRead).toBe(false);
    expect((await permissions('namespace "x" { policy = "write" }')).nodeRead).toBe(false);
  });

  it("answers namespace=* when any namespace grants the capability", async () => {
    const p = await permissions('namespace "prod" { policy = "read" }', 'namespace "dev" { policy = "deny" }');
    expect(p.allowsAnywhere("list-jobs")).toBe(true);
    expect(p.allowsAnywhere("submit-job")).toBe(false);
  });
});

describe("Go durations in token responses", () => {
  it.each([
    [3_600e9, "1h0m0s"],
    [90e9, "1m30s"],
    [300e6, "300ms"],
    [1.5e9, "1.5s"],
    [86_400e9, "24h0m0s"],
    [0, "0s"],
    [-3_600e9, "-1h0m0s"],
  ])("writes %i ns as %s", (nanoseconds, text) => {
    expect(goDurationText(nanoseconds)).toBe(text);
  });
});
