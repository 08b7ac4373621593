/**
 * The seams of src/server: the domain (registration, the scheduler, namespaces, ACLs, decoding,
 * the state store) never names an HTTP status or imports the web framework; its refusals get
 * their status by kind, in one place.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { denied, invalid, missing, Refusal } from "../../src/server/domain-errors.js";
import { HttpError, REFUSAL_STATUS, responseOf } from "../../src/server/http-errors.js";

const SERVER = join(import.meta.dirname, "../../src/server");
/** The domain's modules: they may not know about HTTP. */
const DOMAIN = ["cluster.ts", "register.ts", "acl.ts", "acl-policy.ts", "go-json.ts", "store.ts", "model.ts", "demo.ts", "domain-errors.ts"];

describe("the domain's refusals", () => {
  it.each([
    [invalid("job ID is required"), 400],
    [denied(), 403],
    [missing("Namespace not found"), 404],
  ])("%s becomes status %i, with its reason as the body", (refusal, status) => {
    expect(refusal).toBeInstanceOf(Refusal);
    expect(responseOf(refusal)).toEqual({ status, message: refusal.message });
    expect(REFUSAL_STATUS[refusal.kind]).toBe(status);
  });

  it("leaves the HTTP layer's own errors their status, and anything else to the 500 handler", () => {
    expect(responseOf(new HttpError(415, "Prometheus is not enabled"))).toEqual({ status: 415, message: "Prometheus is not enabled" });
    expect(responseOf(new Error("a bug"))).toBeUndefined();
  });

  it.each(DOMAIN)("%s imports neither fastify nor the HTTP layer", (file) => {
    expect(readdirSync(SERVER)).toContain(file);
    const imports = [...readFileSync(join(SERVER, file), "utf8").matchAll(/^import[^;]*from "([^"]+)";$/gm)].map((match) => match[1]);
    expect(imports.filter((from) => from === "fastify" || /^\.\/(http|http-errors|app|routes-[a-z-]+)\.js$/.test(from!))).toEqual([]);
  });
});
