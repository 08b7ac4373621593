/**
 * Native services (`provider = "nomad"`): registered as allocations start running, dropped as they
 * stop, are lost or their job is purged; read through `/v1/services`, `/v1/service/<name>`,
 * `/v1/job/<id>/services` and `/v1/allocation/<id>/services`, deleted by ID; on the manual clock
 * over real sockets.
 */
import { describe, expect, it } from "vitest";
import { framesOf } from "../../src/server/domain/event-frames.js";
import { chooseServices } from "../../src/server/http/service-routes.js";
import { parseJson } from "../../src/json.js";
import type { ServiceRegistration } from "../../src/server/state/model.js";
import { eventually, job, send, useAgent } from "./support.js";

type Item = Record<string, any>;

/** A job whose group registers `web` (port `http`, tags) and whose task registers `api` (no port), both with the nomad provider, and `other` with consul. */
const served = (id: string, count = 1) =>
  job(id, {
    TaskGroups: [
      {
        Name: "g",
        Count: count,
        Networks: [{ DynamicPorts: [{ Label: "http" }] }],
        Services: [
          { Name: "web", PortLabel: "http", Provider: "nomad", Tags: ["a", "b"] },
          { Name: "other", PortLabel: "http", Provider: "consul" },
        ],
        Tasks: [{ Name: "t", Driver: "mock", Services: [{ Name: "api", Provider: "nomad", Tags: ["x"] }] }],
      },
    ],
  });

describe("native service registrations", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2, namespaces: [{ Name: "prod" }] });
  const read = async <T = Item>(path: string) => {
    const response = await agent.get(path);
    expect(response.status, response.text).toBe(200);
    return response.json<T>();
  };
  const running = async (id: string, count: number, namespace = "default") =>
    eventually(async () => {
      const allocs = await read<Item[]>(`/v1/job/${id}/allocations?namespace=${namespace}`);
      return allocs.filter((alloc) => alloc.ClientStatus === "running").length === count ? allocs : undefined;
    });

  it("registers the nomad services of a group and of its tasks once the allocation runs, with the allocation's port", async () => {
    await agent.register(served("svc"));
    expect(await read("/v1/service/web")).toEqual([]);
    await agent.agent.clock.advance("1s");
    const [alloc] = await running("svc", 1);
    const full = await read<Item>(`/v1/allocation/${alloc!.ID}`);
    const port = full.AllocatedResources.Shared.Ports[0];
    const node = await read<Item>(`/v1/node/${alloc!.NodeID}`);
    const web = await eventually(async () => (await read<Item[]>("/v1/service/web"))[0]);
    expect(web).toEqual({
      ID: `_nomad-task-${alloc!.ID}-group-g-web-http`,
      ServiceName: "web",
      Namespace: "default",
      NodeID: alloc!.NodeID,
      Datacenter: node.Datacenter,
      JobID: "svc",
      AllocID: alloc!.ID,
      Tags: ["a", "b"],
      Address: port.HostIP,
      Port: port.Value,
      CreateIndex: web.CreateIndex,
      ModifyIndex: web.CreateIndex,
    });
    expect(web.Port).toBeGreaterThan(0);
    const [api] = await read<Item[]>("/v1/service/api");
    expect(api).toMatchObject({ ID: `_nomad-task-${alloc!.ID}-t-api-`, Tags: ["x"], Port: 0 });
    expect(await read("/v1/service/other")).toEqual([]);
    const response = await agent.get("/v1/services");
    // The registrations' table index: at least the registration's, later when a write naming the table
    // came after it (on PostgreSQL an allocation's next client update can be a write later).
    expect(Number(response.headers["x-svc-index"])).toBeGreaterThanOrEqual(web.CreateIndex);
    expect(response.json()).toEqual([{ Namespace: "default", Services: [{ ServiceName: "api", Tags: ["x"] }, { ServiceName: "web", Tags: ["a", "b"] }] }]);
    // By ID: the group workload (`group-g`) sorts before the task (`t`).
    expect((await read<Item[]>("/v1/job/svc/services")).map((each) => each.ServiceName)).toEqual(["web", "api"]);
    expect(await read<Item[]>(`/v1/allocation/${alloc!.ID}/services`)).toHaveLength(2);
  });

  it("wakes a blocking read of the services when an allocation registers one", async () => {
    const before = await agent.get("/v1/services");
    const index = Number(before.headers["x-svc-index"]);
    const waiting = agent.get(`/v1/services?index=${index}&wait=5s`);
    await agent.register(served("woken"));
    await agent.agent.clock.advance("1s");
    const woken = await waiting;
    expect(Number(woken.headers["x-svc-index"])).toBeGreaterThan(index);
    await eventually(async () => ((await read<Item[]>("/v1/job/woken/services")).length === 2 ? true : undefined));
  });

  it("pages and filters a service's instances, and chooses among them", async () => {
    await agent.register(served("many", 3));
    await agent.agent.clock.advance("1s");
    await running("many", 3);
    const all = await eventually(async () => {
      const instances = await read<Item[]>("/v1/service/web?filter=" + encodeURIComponent('JobID == "many"'));
      return instances.length === 3 ? instances : undefined;
    });
    expect(all.map((each) => each.ID)).toEqual([...all.map((each) => each.ID)].sort());
    const first = await agent.get("/v1/service/web?per_page=2&filter=" + encodeURIComponent('JobID == "many"'));
    expect(first.json<Item[]>()).toHaveLength(2);
    expect(first.headers["x-svc-nexttoken"]).toBe(`default.${all[2]!.ID}`);
    const chosen = await read<Item[]>("/v1/service/web?choose=2|my-alloc&filter=" + encodeURIComponent('JobID == "many"'));
    expect(chosen.map((each) => each.ID)).toEqual(chooseServices(all as ServiceRegistration[], "2|my-alloc").map((each) => each.ID));
    expect(chosen).toHaveLength(2);
    // More than there are: every instance, in the hash's order.
    expect(chooseServices(all as ServiceRegistration[], "9|my-alloc")).toHaveLength(3);
  });

  it.each([
    ["choose has no key", "/v1/service/web?choose=2", 400, "failed to choose services: Parameter for choose must be in form '<number>|<key>'"],
    ["choose's count is not a number", "/v1/service/web?choose=x|k", 400, "failed to choose services: Parameter for choose must be in form '<number>|<key>'"],
    ["the job does not exist", "/v1/job/nobody/services", 404, "job not found"],
    ["the allocation does not exist", "/v1/allocation/00000000-0000-4000-8000-000000000000/services", 404, "allocation not found"],
    ["the path is too deep", "/v1/service/web/id/more", 400, "invalid URI"],
    ["the path names no service", "/v1/service/", 400, "missing service name"],
  ])("answers %s with the reference's text", async (_name, path, status, text) => {
    const response = await agent.get(path);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });

  it("lists the services of every namespace with namespace=*, and of one namespace otherwise", async () => {
    await agent.register(served("prodsvc"), "?namespace=prod");
    await agent.agent.clock.advance("1s");
    await running("prodsvc", 1, "prod");
    await eventually(async () => ((await read<Item[]>("/v1/services?namespace=prod")).length === 1 ? true : undefined));
    expect((await read<Item[]>("/v1/services?namespace=*")).map((each) => each.Namespace)).toEqual(["default", "prod"]);
    expect((await read<Item[]>("/v1/services?namespace=prod"))[0]!.Services.map((each: Item) => each.ServiceName)).toEqual(["api", "web"]);
    // The alloc of another namespace is not found through this one.
    const [alloc] = await read<Item[]>("/v1/job/prodsvc/allocations?namespace=prod");
    expect((await agent.get(`/v1/allocation/${alloc!.ID}/services`)).status).toBe(404);
  });

  it("drops an allocation's services when it stops, and deletes one by ID", async () => {
    await agent.register(served("gone"));
    await agent.agent.clock.advance("1s");
    const [alloc] = await running("gone", 1);
    const services = await eventually(async () => {
      const found = await read<Item[]>(`/v1/allocation/${alloc!.ID}/services`);
      return found.length === 2 ? found : undefined;
    });
    const web = services.find((each) => each.ServiceName === "web")!;
    const deleted = await send(`${agent.url}/v1/service/web/${web.ID}`, { method: "DELETE" });
    expect(deleted.status, deleted.text).toBe(200);
    expect(Number(deleted.headers["x-svc-index"])).toBeGreaterThan(web.CreateIndex);
    expect((await read<Item[]>(`/v1/allocation/${alloc!.ID}/services`)).map((each) => each.ServiceName)).toEqual(["api"]);
    const again = await send(`${agent.url}/v1/service/web/${web.ID}`, { method: "DELETE" });
    expect({ status: again.status, text: again.text }).toEqual({ status: 404, text: "service registration not found" });
    const stopped = await send(`${agent.url}/v1/job/gone`, { method: "DELETE" });
    expect(stopped.status).toBe(200);
    await agent.agent.clock.advance("1s");
    await eventually(async () => ((await read<Item[]>(`/v1/allocation/${alloc!.ID}/services`)).length === 0 ? true : undefined));
  });

  it("drops the services of an allocation lost with its node", async () => {
    await agent.register(served("lost"));
    await agent.agent.clock.advance("1s");
    const [alloc] = await running("lost", 1);
    await eventually(async () => ((await read<Item[]>(`/v1/allocation/${alloc!.ID}/services`)).length === 2 ? true : undefined));
    const down = agent.agent.scenarios.add({ on: "node", select: `ID == "${alloc!.NodeID}"`, set: { Status: "down" } });
    await agent.agent.clock.advance(0);
    await eventually(async () => ((await read<Item>(`/v1/allocation/${alloc!.ID}`)).ClientStatus === "lost" ? true : undefined));
    expect(await read(`/v1/allocation/${alloc!.ID}/services`)).toEqual([]);
    agent.agent.scenarios.remove(down);
  });

  it("updates the registrations of an allocation updated in place, keeping their CreateIndex", async () => {
    await agent.register(served("inplace"));
    await agent.agent.clock.advance("1s");
    const [alloc] = await running("inplace", 1);
    const before = await eventually(async () => (await read<Item[]>(`/v1/allocation/${alloc!.ID}/services`)).find((each) => each.ServiceName === "web"));
    const updated = served("inplace") as { TaskGroups: Item[] };
    updated.TaskGroups[0]!.Services = [{ Name: "web", PortLabel: "http", Provider: "nomad", Tags: ["c"] }];
    await agent.register(updated);
    await agent.agent.clock.advance("1s");
    const after = await eventually(async () => {
      const found = await read<Item[]>(`/v1/allocation/${alloc!.ID}/services`);
      return found.find((each) => each.ServiceName === "web")?.Tags?.[0] === "c" ? found : undefined;
    });
    // Updated in place: the same allocation, at the new version.
    expect((await read<Item>(`/v1/allocation/${alloc!.ID}`)).Job.Version).toBe(1);
    const web = after.find((each) => each.ServiceName === "web")!;
    expect(web).toMatchObject({ ID: before.ID, Tags: ["c"], CreateIndex: before.CreateIndex });
    expect(web.ModifyIndex).toBeGreaterThan(before.ModifyIndex);
    // The task's service, unchanged, keeps its indexes; none is left over.
    expect(after.map((each) => each.ServiceName).sort()).toEqual(["api", "web"]);
  });

  it("drops a purged job's services", async () => {
    await agent.register(served("purged"));
    await agent.agent.clock.advance("1s");
    await running("purged", 1);
    await eventually(async () => ((await read<Item[]>("/v1/job/purged/services")).length === 2 ? true : undefined));
    const purged = await send(`${agent.url}/v1/job/purged?purge=true`, { method: "DELETE" });
    expect(purged.status).toBe(200);
    expect((await read<Item[]>("/v1/service/web")).filter((each) => each.JobID === "purged")).toEqual([]);
  });
});

describe("native services under ACLs", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000b0";
  const PROD_READER = "00000000-0000-4000-8000-0000000000b1";
  const PROD_DELETER = "00000000-0000-4000-8000-0000000000b2";
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
        { Name: "prod-svc-delete", Rules: 'namespace "prod" { capabilities = ["delete-service-registration"] }' },
      ],
      tokens: [
        { SecretID: PROD_READER, Name: "prod reader", Type: "client", Policies: ["prod-read"] },
        { SecretID: PROD_DELETER, Name: "prod service deleter", Type: "client", Policies: ["prod-svc-delete"] },
      ],
    },
  });
  const as = (token: string, path: string, method = "GET") => send(`${agent.url}${path}`, { method, headers: { "x-svc-token": token } });

  it("shows a reader the services of the namespaces it may read, and refuses the others", async () => {
    for (const namespace of ["default", "prod"]) {
      const registered = await send(`${agent.url}/v1/jobs?namespace=${namespace}`, { method: "PUT", headers: { "x-svc-token": ROOT }, body: JSON.stringify({ Job: served(`acl-${namespace}`) }) });
      expect(registered.status, registered.text).toBe(200);
    }
    await agent.agent.clock.advance("1s");
    await eventually(async () => ((await as(ROOT, "/v1/services?namespace=*")).json<Item[]>().length === 2 ? true : undefined));
    expect((await as(PROD_READER, "/v1/services?namespace=*")).json<Item[]>().map((each) => each.Namespace)).toEqual(["prod"]);
    expect((await as(PROD_READER, "/v1/services")).status).toBe(403);
    expect((await as(PROD_READER, "/v1/service/web")).status).toBe(403);
    expect((await as(PROD_READER, "/v1/service/web?namespace=prod")).json<Item[]>()).toHaveLength(1);
    const [instance] = (await as(ROOT, "/v1/service/web?namespace=prod")).json<Item[]>();
    const refused = await as(PROD_READER, `/v1/service/web/${instance!.ID}?namespace=prod`, "DELETE");
    expect({ status: refused.status, text: refused.text }).toEqual({ status: 403, text: "Permission denied" });
    // delete-service-registration alone may delete, in its namespace only.
    expect((await as(PROD_DELETER, `/v1/service/web/${instance!.ID}`, "DELETE")).status).toBe(403);
    const deleted = await as(PROD_DELETER, `/v1/service/web/${instance!.ID}?namespace=prod`, "DELETE");
    expect(deleted.status, deleted.text).toBe(200);
  });
});

describe("the Service topic of the event stream", () => {
  const registration: ServiceRegistration = { ID: "_nomad-task-a-group-g-web-http", ServiceName: "web", Namespace: "prod", NodeID: "n", Datacenter: "dc1", JobID: "j", AllocID: "a", Tags: ["t"], Address: "10.0.0.1", Port: 8080, CreateIndex: 7, ModifyIndex: 7 };
  const key = `prod\u0000${registration.ID}`;
  const eventsOf = (changes: ReadonlyMap<string, ServiceRegistration | undefined>, message: "ServiceRegistrationUpsert" | "ServiceRegistrationDeleteByID" | "AllocClientUpdate") =>
    framesOf({ index: 7, changes: { service_registrations: changes }, messages: new Map([[7, message]]) }, 0).flatMap((frame) => frame.events.map((event) => parseJson(event.encoded.toString("utf8")) as Item));

  it.each([
    ["a registration", new Map([[key, registration]]), "ServiceRegistrationUpsert", "ServiceRegistration", ["j", "web"], { Service: { ...registration } }],
    ["a deletion by ID", new Map([[key, undefined]]), "ServiceRegistrationDeleteByID", "ServiceDeregistration", null, { Service: { ID: registration.ID, Namespace: "prod" } }],
    ["a deletion with its allocation's end", new Map([[key, undefined]]), "AllocClientUpdate", "AllocationUpdated", null, { Service: { ID: registration.ID, Namespace: "prod" } }],
  ] as const)("makes %s an event of the write's type", (_name, changes, message, type, filterKeys, payload) => {
    expect(eventsOf(changes, message)).toEqual([{ Topic: "Service", Type: type, Key: registration.ID, Namespace: "prod", FilterKeys: filterKeys, Index: 7, Payload: payload }]);
  });
});
