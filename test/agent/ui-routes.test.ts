import Fastify, { type FastifyInstance } from "fastify";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Explanation, ExplainedGroup, ExplainedMatch } from "../../src/editor/explain.js";
import { defaultUiDirectory, MAX_EXPLAINED_VALUE_LENGTH, UI_CONTENT_SECURITY_POLICY, UI_NOT_BUILT, uiFileRoutes } from "../../src/server/http/ui-routes.js";
import { eventually, job, send, useAgent, type TestAgent } from "./support.js";

/** Sends a request line exactly as written (no client normalises the path) and returns the status and body. */
function rawGet(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      resolve({ status: Number(text.split(" ")[1]), text });
    });
  });
}

describe("the UI's files, served from a built directory", () => {
  let root: string;
  let directory: string;
  let app: FastifyInstance;
  let url: string;
  let port: number;
  const SECRET = "the-secret-next-to-the-ui";

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "bexpr-ui-routes-"));
    directory = join(root, "ui");
    // A file beside the UI directory and one below it: neither may ever be served.
    writeFileSync(join(root, "secret.txt"), SECRET);
    app = Fastify();
    uiFileRoutes(app, directory);
    url = await app.listen({ port: 0, host: "127.0.0.1" });
    port = Number(new URL(url).port);
  });
  afterAll(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("answers 503 with what to do while the UI is not built", async () => {
    const response = await send(`${url}/ui/`);
    expect(response.status).toBe(503);
    expect(response.text).toBe(UI_NOT_BUILT);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("serves the files once they are built, each with its content type, caching and security headers", async () => {
    mkdirSync(join(directory, "nested"), { recursive: true });
    writeFileSync(join(directory, "index.html"), '<!doctype html><script type="module" src="main-ABC.js"></script>');
    writeFileSync(join(directory, "main-ABC.js"), "console.log(1)");
    writeFileSync(join(directory, "main-DEF.css"), "body{}");
    writeFileSync(join(directory, "main-ABC.js.map"), "{}");
    writeFileSync(join(directory, "nested", "inner.js"), SECRET);

    const page = await send(`${url}/ui/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("main-ABC.js");
    expect(page.headers).toMatchObject({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": UI_CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
    });
    expect(UI_CONTENT_SECURITY_POLICY).toMatch(/^default-src 'self'; /);
    expect(UI_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect((await send(`${url}/ui/index.html`)).text).toBe(page.text);

    const script = await send(`${url}/ui/main-ABC.js`);
    expect(script.status).toBe(200);
    expect(script.text).toBe("console.log(1)");
    expect(script.headers).toMatchObject({ "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" });
    expect((await send(`${url}/ui/main-DEF.css`)).headers["content-type"]).toBe("text/css; charset=utf-8");
  });

  it("answers 304 to a request that has the current ETag", async () => {
    const first = await send(`${url}/ui/`);
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await send(`${url}/ui/`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
  });

  it("reads the directory once: files added later are not served", async () => {
    writeFileSync(join(directory, "late.js"), "late");
    expect((await send(`${url}/ui/late.js`)).status).toBe(404);
  });

  it("answers 404 with a plain-text reason for a file it does not have", async () => {
    const response = await send(`${url}/ui/nope.js`);
    expect(response.status).toBe(404);
    expect(response.text).toBe("The UI has no file by that name.");
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.headers["content-security-policy"]).toBe(UI_CONTENT_SECURITY_POLICY);
  });

  it("does not serve source maps, subdirectories or anything outside the directory", async () => {
    expect((await send(`${url}/ui/main-ABC.js.map`)).status).toBe(404);
    expect((await send(`${url}/ui/nested/inner.js`)).status).toBe(404);
  });

  it.each([
    "/ui/../secret.txt",
    "/ui/..%2fsecret.txt",
    "/ui/%2e%2e/secret.txt",
    "/ui/%2E%2E%2Fsecret.txt",
    "/ui/..\\secret.txt",
    "/ui/....//secret.txt",
    "/ui//" + "etc/passwd",
    "/ui/%2fetc%2fpasswd",
    "/ui/nested/../../secret.txt",
    "/ui/index.html%00.txt",
    "/ui/./index.html",
  ])("answers 404 to the path traversal attempt %s", async (path) => {
    const response = await rawGet(port, path);
    expect(response.status).toBe(404);
    expect(response.text).not.toContain(SECRET);
    expect(response.text).not.toContain("root:");
  });
});

const agent = useAgent({ demo: true, placementDelayMs: 60_000 });

/** GET /_bexpr/explain with these parameters. */
function explainPath(parameters: Record<string, string>): string {
  return `/_bexpr/explain?${new URLSearchParams(parameters)}`;
}

async function explained(target: TestAgent, parameters: Record<string, string>, token?: string): Promise<Explanation> {
  const response = await target.get(explainPath(parameters), token === undefined ? {} : { headers: { "x-svc-token": token } });
  expect(response.status, response.text).toBe(200);
  expect(response.headers["content-type"]).toBe("application/json");
  return response.json<Explanation>();
}

describe("the agent's /ui/", () => {
  it("redirects / and /ui to /ui/, keeping the query", async () => {
    const root = await agent.get("/?list=jobs");
    expect(root.status).toBe(307);
    expect(root.headers.location).toBe("/ui/?list=jobs");
    const bare = await agent.get("/ui?filter=x");
    expect(bare.status).toBe(307);
    expect(bare.headers.location).toBe("/ui/?filter=x");
  });

  it("serves the built page, or says to build it", async () => {
    const response = await agent.get("/ui/");
    expect(response.headers["content-security-policy"]).toBe(UI_CONTENT_SECURITY_POLICY);
    if (existsSync(join(defaultUiDirectory(), "index.html"))) {
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      // The page names one script and one style sheet, and the agent serves both.
      const script = /<script type="module" src="([^"]+)"/.exec(response.text)?.[1];
      const style = /<link rel="stylesheet" href="([^"]+)"/.exec(response.text)?.[1];
      expect((await agent.get(`/ui/${script}`)).headers["content-type"]).toBe("text/javascript; charset=utf-8");
      expect((await agent.get(`/ui/${style}`)).headers["content-type"]).toBe("text/css; charset=utf-8");
      // No inline script in the page (the CSP would block it anyway).
      expect(response.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    } else {
      expect(response.status).toBe(503);
      expect(response.text).toBe(UI_NOT_BUILT);
    }
  });

  it("answers another method with 405", async () => {
    expect((await agent.get("/ui/", { method: "POST" })).status).toBe(405);
    expect((await agent.get("/_bexpr/explain", { method: "PUT" })).status).toBe(405);
  });
});

describe("GET /_bexpr/explain", () => {
  it("explains a match on what the list filters: the whole stored job, in typed mode", async () => {
    await agent.register(job("explained", { Meta: { owner: "team-a" } }));
    // TaskGroups is not in the list item: the list filters on the stored job, and so does explain.
    const filter = 'Meta.owner == "team-a" and TaskGroups.0.Name == "g"';
    const listed = await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`);
    expect(listed.json<{ ID: string }[]>().map((item) => item.ID)).toEqual(["explained"]);
    const explanation = await explained(agent, { list: "jobs", id: "explained", filter });
    expect(explanation.matched).toBe(true);
    const root = explanation.root as ExplainedGroup;
    expect(root).toMatchObject({ kind: "And", outcome: true, decided: true });
    expect(root.operands[0]).toMatchObject({ kind: "Match", text: 'Meta.owner == "team-a"', outcome: true, found: { value: "team-a" } });
    expect(root.operands[1]).toMatchObject({ kind: "Match", outcome: true, found: { value: "g" } });
  });

  it("explains a row that does not match, with the deciding clause and what the selector found or missed", async () => {
    const explanation = await explained(agent, { list: "jobs", namespace: "default", id: "explained", filter: 'Meta.tier == "gold" or Type == "batch"' });
    expect(explanation.matched).toBe(false);
    const root = explanation.root as ExplainedGroup;
    const [tier, type] = root.operands as [ExplainedMatch, ExplainedMatch];
    expect(tier).toMatchObject({ outcome: false, decided: true, found: { missing: true } });
    expect(type).toMatchObject({ outcome: false, decided: true, found: { value: "service" } });
  });

  it("reports an evaluation error in the explanation, where the list answers 400", async () => {
    const filter = "Priority == high";
    expect((await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`)).status).toBe(400);
    const explanation = await explained(agent, { list: "jobs", id: "explained", filter });
    expect(explanation.matched).toBe(false);
    expect(explanation.error?.code).toBe("invalid_literal");
    expect(explanation.root.outcome).toBe("error");
  });

  it("sends large found values as their cut preview, so that the answer stays small whatever the row", async () => {
    const meta = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${i}`, "x".repeat(2_000)]));
    await agent.register(job("large-meta", { Meta: meta }));
    const clauses = 300;
    const filter = Array.from({ length: clauses }, () => "Meta is not empty").join(" and ");
    const response = await agent.get(explainPath({ list: "jobs", id: "large-meta", filter }));
    expect(response.status, response.text).toBe(200);
    // Each clause found the whole Meta (100 KB): 30 MB in all, were the values sent as they are.
    expect(response.text.length).toBeLessThan(clauses * (MAX_EXPLAINED_VALUE_LENGTH + 500));
    const root = response.json<Explanation>().root as ExplainedGroup;
    expect(root.outcome).toBe(true);
    const found = (root.operands[0] as ExplainedMatch).found as { value: string; truncated: true };
    expect(found.truncated).toBe(true);
    expect(found.value).toHaveLength(MAX_EXPLAINED_VALUE_LENGTH);
    expect(found.value.startsWith('{"key0":"xxx')).toBe(true);
    // Small values are sent as they are.
    const small = await explained(agent, { list: "jobs", id: "large-meta", filter: "Priority == 50" });
    expect((small.root as ExplainedMatch).found).toEqual({ value: 50 });
  });

  it("explains a deployment by its ID in its namespace", async () => {
    const deployments = (await agent.get("/v1/deployments?namespace=*")).json<{ ID: string; Namespace: string; Status: string }[]>();
    const [deployment] = deployments;
    expect(deployment).toBeDefined();
    const explanation = await explained(agent, { list: "deployments", namespace: deployment!.Namespace, id: deployment!.ID, filter: `Status == "${deployment!.Status}"` });
    expect(explanation).toMatchObject({ matched: true, root: { found: { value: deployment!.Status } } });
    // The same ID asked in another namespace is not there.
    const elsewhere = deployment!.Namespace === "prod" ? "default" : "prod";
    const response = await agent.get(explainPath({ list: "deployments", namespace: elsewhere, id: deployment!.ID, filter: "Status == x" }));
    expect(response.status).toBe(404);
    expect(response.text).toBe(`deployment "${deployment!.ID}" not found in namespace "${elsewhere}"`);
  });

  it("finds a job only in the namespace asked for", async () => {
    // The demo has `report` in default only, and `nightly-backup` in prod only.
    expect((await explained(agent, { list: "jobs", namespace: "prod", id: "nightly-backup", filter: "Type == batch" })).matched).toBe(true);
    const response = await agent.get(explainPath({ list: "jobs", namespace: "prod", id: "report", filter: "Type == batch" }));
    expect(response.status).toBe(404);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.text).toBe('job "report" not found in namespace "prod"');
  });

  it("answers 400 with the parser's reason for a filter that does not parse", async () => {
    const response = await agent.get(explainPath({ list: "jobs", id: "explained", filter: 'Status = "running"' }));
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.text).toMatch(/^failed to read filter expression: 1:8: "=" is not an operator/);
    expect(response.text).toContain("    Status = \"running\"\n");
  });

  it.each([
    [{ id: "explained", filter: "ID == x" }, "Missing list: jobs or deployments"],
    [{ list: "nodes", id: "explained", filter: "ID == x" }, 'Invalid list "nodes": explain knows jobs and deployments'],
    [{ list: "toString", id: "explained", filter: "ID == x" }, 'Invalid list "toString": explain knows jobs and deployments'],
    [{ list: "jobs", filter: "ID == x" }, "Missing id: the ID of the row to explain"],
    [{ list: "jobs", id: "explained" }, "Missing filter: the filter to explain"],
    [{ list: "jobs", id: "explained", filter: "ID == x", namespace: "*" }, "namespace must name the row's namespace, not *"],
  ])("answers 400 to %j", async (parameters, reason) => {
    const response = await agent.get(explainPath(parameters));
    expect(response.status).toBe(400);
    expect(response.text).toBe(reason);
  });

  it("answers 500 No path to region for another region, as the lists do", async () => {
    const response = await agent.get(explainPath({ list: "jobs", id: "explained", filter: "ID == x", region: "mars" }));
    expect(response.status).toBe(500);
    expect(response.text).toBe("No path to region");
  });
});

const ROOT = "00000000-0000-4000-8000-0000000000a1";
const DEFAULT_READER = "00000000-0000-4000-8000-0000000000a2";
const PROD_LISTER = "00000000-0000-4000-8000-0000000000a3";

const guarded = useAgent({
  demo: true,
  placementDelayMs: 60_000,
  acl: {
    enabled: true,
    bootstrapToken: ROOT,
    policies: [
      { Name: "default-read", Rules: 'namespace "default" { policy = "read" }' },
      { Name: "prod-list", Rules: 'namespace "prod" { capabilities = ["list-jobs"] }' },
    ],
    tokens: [
      { SecretID: DEFAULT_READER, Name: "default reader", Policies: ["default-read"] },
      { SecretID: PROD_LISTER, Name: "prod lister", Policies: ["prod-list"] },
    ],
  },
});

describe("GET /_bexpr/explain with ACLs on", () => {
  const asToken = (token: string | undefined, parameters: Record<string, string>) => guarded.get(explainPath(parameters), token === undefined ? {} : { headers: { "x-svc-token": token } });

  it("needs what reading the row needs, read-job in the row's namespace, not the list's list-jobs", async () => {
    const prodWeb = { list: "jobs", namespace: "prod", id: "web", filter: "Type == service" };
    expect((await asToken(ROOT, prodWeb)).status).toBe(200);
    for (const token of [undefined, DEFAULT_READER, PROD_LISTER, "not-a-uuid"]) {
      const response = await asToken(token, prodWeb);
      expect(response.status).toBe(403);
      expect(response.text).toBe("Permission denied");
    }
    // GET /v1/job/web refuses the same callers in the same way; the list still lets the lister in.
    expect((await send(`${guarded.url}/v1/job/web?namespace=prod`, { headers: { "x-svc-token": PROD_LISTER } })).status).toBe(403);
    expect((await send(`${guarded.url}/v1/jobs?namespace=prod`, { headers: { "x-svc-token": PROD_LISTER } })).status).toBe(200);
    const deployment = (await guarded.get("/v1/deployments?namespace=prod", { headers: { "x-svc-token": ROOT } })).json<{ ID: string }[]>()[0]!;
    const prodDeployment = { list: "deployments", namespace: "prod", id: deployment.ID, filter: "Status != x" };
    expect((await asToken(PROD_LISTER, prodDeployment)).status).toBe(403);
    expect((await asToken(ROOT, prodDeployment)).status).toBe(200);
  });

  it("gives a token no view across namespaces: a readable namespace does not reach another's rows", async () => {
    expect((await asToken(DEFAULT_READER, { list: "jobs", namespace: "default", id: "web", filter: "Type == service" })).status).toBe(200);
    // prod/nightly-backup exists, but asked through default it is not there.
    const response = await asToken(DEFAULT_READER, { list: "jobs", namespace: "default", id: "nightly-backup", filter: "Type == batch" });
    expect(response.status).toBe(404);
  });
});

// Issue 25, finding 3: explain gave a token with list-jobs alone the job's whole spec (a task's Env
// included), which GET /v1/job/<id> refuses it.
const SECRET_VALUE = "hunter2-db-password-4f1c";
const TEAM_B_ROOT = "00000000-0000-4000-8000-0000000000b1";
const TEAM_B_LISTER = "00000000-0000-4000-8000-0000000000b2";
const TEAM_B_READER = "00000000-0000-4000-8000-0000000000b3";
const TEAM_A_READER = "00000000-0000-4000-8000-0000000000b4";

const teams = useAgent({
  namespaces: [{ Name: "team-a" }, { Name: "team-b" }],
  acl: {
    enabled: true,
    bootstrapToken: TEAM_B_ROOT,
    policies: [
      { Name: "team-b-list", Rules: 'namespace "team-b" { capabilities = ["list-jobs"] }' },
      { Name: "team-b-read", Rules: 'namespace "team-b" { policy = "read" }' },
      { Name: "team-a-read", Rules: 'namespace "team-a" { policy = "read" }' },
      // Anonymous requests may list team-b's jobs, and nothing more.
      { Name: "anonymous", Rules: 'namespace "team-b" { capabilities = ["list-jobs"] }' },
    ],
    tokens: [
      { SecretID: TEAM_B_LISTER, Name: "team-b lister", Policies: ["team-b-list"] },
      { SecretID: TEAM_B_READER, Name: "team-b reader", Policies: ["team-b-read"] },
      { SecretID: TEAM_A_READER, Name: "team-a reader", Policies: ["team-a-read"] },
    ],
  },
});

describe("GET /_bexpr/explain needs what reading the row needs", () => {
  const headers = (token: string | undefined) => (token === undefined ? {} : { headers: { "x-svc-token": token } });
  let deploymentId: string;

  beforeAll(async () => {
    const spec = job("billing", { TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "mock", Env: { DB_PASSWORD: SECRET_VALUE } }] }] });
    const registered = await teams.put("/v1/jobs?namespace=team-b", { Job: spec }, headers(TEAM_B_ROOT));
    expect(registered.status, registered.text).toBe(200);
    deploymentId = await eventually(async () => {
      const listed = await teams.get("/v1/deployments?namespace=team-b", headers(TEAM_B_ROOT));
      return listed.json<{ ID: string }[]>()[0]?.ID;
    });
  });

  /** Each list's row, the filter that reaches its values, and the route that reads the row. */
  const rows = {
    jobs: () => ({ id: "billing", filter: `TaskGroups.0.Tasks.0.Env.DB_PASSWORD == "${SECRET_VALUE}"`, read: "/v1/job/billing?namespace=team-b" }),
    deployments: () => ({ id: deploymentId, filter: 'JobID == "billing"', read: `/v1/deployment/${deploymentId}?namespace=team-b` }),
  };

  it.each<[string, "jobs" | "deployments", number, string | undefined]>([
    ["list-jobs in team-b only", "jobs", 403, TEAM_B_LISTER],
    ["list-jobs in team-b only", "deployments", 403, TEAM_B_LISTER],
    ["read-job in team-b", "jobs", 200, TEAM_B_READER],
    ["read-job in team-b", "deployments", 200, TEAM_B_READER],
    ["read-job in team-a only", "jobs", 403, TEAM_A_READER],
    ["read-job in team-a only", "deployments", 403, TEAM_A_READER],
    ["no token (anonymous: list-jobs in team-b)", "jobs", 403, undefined],
    ["no token (anonymous: list-jobs in team-b)", "deployments", 403, undefined],
    ["management", "jobs", 200, TEAM_B_ROOT],
    ["management", "deployments", 200, TEAM_B_ROOT],
  ])("answers a caller with %s, explaining a row of %s, with %i as the route that reads the row does", async (_who, list, status, token) => {
    const { id, filter, read } = rows[list]();
    const explainedRow = await teams.get(explainPath({ list, namespace: "team-b", id, filter }), headers(token));
    const readRow = await teams.get(read, headers(token));
    expect(explainedRow.status, explainedRow.text).toBe(status);
    expect(readRow.status).toBe(status);
    if (status === 200) {
      expect(explainedRow.json<Explanation>().matched).toBe(true);
      return;
    }
    expect(explainedRow.text).toBe("Permission denied");
    expect(explainedRow.text).not.toContain(SECRET_VALUE);
    // A row that does not exist gets the same answer: the refusal tells nothing of the row.
    const missingRow = await teams.get(explainPath({ list, namespace: "team-b", id: list === "jobs" ? "no-such-job" : "00000000-0000-4000-8000-00000000dead", filter }), headers(token));
    expect([missingRow.status, missingRow.text]).toEqual([403, "Permission denied"]);
  });

  it("still lists the job to the list-jobs token, without its spec", async () => {
    const listed = await teams.get("/v1/jobs?namespace=team-b", headers(TEAM_B_LISTER));
    expect(listed.status).toBe(200);
    expect(listed.json<{ ID: string }[]>().map((item) => item.ID)).toEqual(["billing"]);
    expect(listed.text).not.toContain(SECRET_VALUE);
  });

  it("shows the secret to a caller that may read the job, as GET /v1/job/<id> does", async () => {
    const { id, filter } = rows.jobs();
    const response = await teams.get(explainPath({ list: "jobs", namespace: "team-b", id, filter }), headers(TEAM_B_READER));
    expect(response.text).toContain(SECRET_VALUE);
    expect((await teams.get("/v1/job/billing?namespace=team-b", headers(TEAM_B_READER))).text).toContain(SECRET_VALUE);
  });
});
