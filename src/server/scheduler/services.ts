/**
 * Native service registrations (`provider = "nomad"`), as the reference's clients make them
 * (`client/serviceregistration/nsd/`) and its state store drops them
 * (`nomad/state/state_store_service_registration.go`):
 *
 * - an allocation that starts running registers the `nomad` services of its group and of its
 *   tasks, in a write of their own (`ServiceRegistrationUpsert`, the client's RPC after its
 *   allocation runs): one registration per service, its ID as `MakeAllocServiceID` builds it;
 *   one updated in place or whose canary is promoted has them updated (`UpdateWorkload`, see
 *   {@link servicesStale}, which the cluster checks for every allocation a write changes);
 * - an allocation that becomes client-terminal (complete, failed, lost) loses its registrations
 *   in the same write (`deregisterServicesForTerminalAllocs`), and so does one deleted (a job
 *   purged, `deleteServiceRegistrationByAllocIDTxn`);
 * - `DELETE /v1/service/<name>/<id>` removes one (`ServiceRegistrationDeleteByID`).
 *
 * The address and port follow `serviceregistration.GetAddress` in `auto` and `host` modes (the
 * simulated clients have no driver network, so `auto` is `host`): a custom `address` with the
 * port label's value; else the host address and value of the allocation's port of that label, or
 * a numeric label as the port. A service whose address cannot be found (an unknown port label,
 * `address_mode = "driver"` or `"alloc"`) is not registered, where the reference's client fails
 * the whole registration. Names and tags are registered as written: the simulated clients do not
 * interpolate `${...}`.
 *
 * @module
 */
import type { Allocation, Job, JsonObject, Node, ServiceRegistration } from "../state/model.js";
import { namespacedKey, type Store, type Transaction } from "../state/store.js";

/** What the registrations need of the scheduler's context (its store); `state.ts` imports this module, so not its type. */
interface ServiceContext {
  readonly store: Store;
}

/** The prefix of the IDs of task and group services (`nomadTaskPrefix`). */
const TASK_SERVICE_PREFIX = "_nomad-task-";

/** The provider whose services the agent registers itself. */
const NOMAD_PROVIDER = "nomad";

/** A decoded list field: its objects, or none. */
function objectsOf(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter((each): each is JsonObject => typeof each === "object" && each !== null) : [];
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The ID of a service of a workload (`MakeAllocServiceID`): the workload is the task's name, or `group-<group>`. */
export function allocServiceId(allocId: string, workload: string, service: JsonObject): string {
  return `${TASK_SERVICE_PREFIX}${allocId}-${workload}-${text(service.Name)}-${text(service.PortLabel)}`;
}

/** A port of the allocation by label: its host address and value, as the scheduler gave it. */
interface GivenPort {
  readonly hostIp: string;
  readonly value: number;
}

/** The allocation's ports by label (`AllocatedPorts`, then the networks' ports, then its tasks' networks), and its group networks. */
function portsOf(alloc: Allocation): { readonly ports: ReadonlyMap<string, GivenPort>; readonly networks: readonly { readonly IP: string }[] } {
  const ports = new Map<string, GivenPort>();
  const shared = alloc.AllocatedResources?.Shared;
  for (const port of shared?.Ports ?? []) if (!ports.has(port.Label)) ports.set(port.Label, { hostIp: port.HostIP, value: port.Value });
  const networks = [...(shared?.Networks ?? [])];
  for (const task of Object.values(alloc.AllocatedResources?.Tasks ?? {})) networks.push(...(task?.Networks ?? []));
  for (const network of networks) {
    for (const port of [...(network.ReservedPorts ?? []), ...(network.DynamicPorts ?? [])]) if (!ports.has(port.Label)) ports.set(port.Label, { hostIp: network.IP, value: port.Value });
  }
  return { ports, networks: shared?.Networks ?? [] };
}

/** The address and port of a service (`GetAddress` in `auto` and `host` modes); undefined when they cannot be found. */
function addressOf(service: JsonObject, alloc: Allocation): { readonly Address: string; readonly Port: number } | undefined {
  const mode = text(service.AddressMode) || "auto";
  const address = text(service.Address);
  const label = text(service.PortLabel);
  const { ports, networks } = portsOf(alloc);
  const numeric = /^[0-9]+$/.test(label) ? Number(label) : undefined;
  if (mode === "auto" && address !== "") {
    if (label === "") return { Address: address, Port: 0 };
    const given = ports.get(label)?.value ?? numeric;
    return given === undefined ? undefined : { Address: address, Port: given };
  }
  if (mode !== "auto" && mode !== "host") return undefined;
  if (address !== "") return undefined;
  if (label === "") return networks.length === 1 ? { Address: networks[0]!.IP, Port: 0 } : { Address: "", Port: 0 };
  const given = ports.get(label);
  if (given !== undefined) return { Address: given.hostIp, Port: given.value };
  return numeric !== undefined && numeric > 0 ? { Address: "", Port: numeric } : undefined;
}

/**
 * The registrations an allocation's client makes as it starts: each `nomad` service of its group
 * (workload `group-<group>`) and of its tasks (workload: the task's name), with the canary tags
 * while the allocation is a canary that has them.
 */
export function registrationsOf(alloc: Allocation, job: Job, node: Node | undefined, index: number): ServiceRegistration[] {
  const group = job.TaskGroups.find((each) => each.Name === alloc.TaskGroup);
  if (group === undefined) return [];
  const workloads: [string, JsonObject[]][] = [[`group-${group.Name}`, objectsOf(group.Services)]];
  for (const task of objectsOf(group.Tasks)) workloads.push([text(task.Name), objectsOf(task.Services)]);
  const canary = alloc.DeploymentStatus?.Canary === true;
  const registrations: ServiceRegistration[] = [];
  for (const [workload, services] of workloads) {
    for (const service of services) {
      if (text(service.Provider) !== NOMAD_PROVIDER) continue;
      const reached = addressOf(service, alloc);
      if (reached === undefined) continue;
      const canaryTags = objectsOrStrings(service.CanaryTags);
      const tags = canary && canaryTags.length > 0 ? canaryTags : objectsOrStrings(service.Tags);
      registrations.push({
        ID: allocServiceId(alloc.ID, workload, service),
        ServiceName: text(service.Name),
        Namespace: alloc.Namespace,
        NodeID: alloc.NodeID,
        Datacenter: node?.Datacenter ?? "",
        JobID: alloc.JobID,
        AllocID: alloc.ID,
        Tags: tags,
        Address: reached.Address,
        Port: reached.Port,
        CreateIndex: index,
        ModifyIndex: index,
      });
    }
  }
  return registrations;
}

/** A list of strings (tags), or an empty one. */
function objectsOrStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((each): each is string => typeof each === "string") : [];
}

/** Whether two registrations are the same but for their indexes (`ServiceRegistration.Equal`: tags as sets). */
function sameRegistration(a: ServiceRegistration, b: ServiceRegistration): boolean {
  const tagsA = new Set(a.Tags ?? []);
  const tagsB = new Set(b.Tags ?? []);
  return (
    a.ID === b.ID &&
    a.ServiceName === b.ServiceName &&
    a.NodeID === b.NodeID &&
    a.Datacenter === b.Datacenter &&
    a.JobID === b.JobID &&
    a.AllocID === b.AllocID &&
    a.Namespace === b.Namespace &&
    a.Address === b.Address &&
    a.Port === b.Port &&
    tagsA.size === tagsB.size &&
    [...tagsA].every((tag) => tagsB.has(tag))
  );
}

/** The job of an allocation at its version (the job as it is now once that version is gone). */
function allocJob(tables: Store["tables"], alloc: Allocation): Job | undefined {
  const key = namespacedKey(alloc.Namespace, alloc.JobID);
  return tables.job_versions.get(`${key}\u0000${alloc.JobVersion}`)?.Job ?? tables.jobs.get(key);
}

/** Whether an allocation runs, so that its client keeps its services registered. */
function runs(alloc: Allocation | undefined): alloc is Allocation {
  return alloc !== undefined && alloc.ClientStatus === "running" && alloc.DesiredStatus === "run";
}

/**
 * Whether a running allocation's registrations are not what its client would register now: it
 * started, its job was updated in place (new services, tags, ports), or its canary was promoted
 * (its tags). The cluster then has its client update them ({@link syncServices}).
 */
export function servicesStale(tables: Store["tables"], alloc: Allocation): boolean {
  if (!runs(alloc)) return false;
  const job = allocJob(tables, alloc);
  if (job === undefined) return false;
  const wanted = registrationsOf(alloc, job, tables.nodes.get(alloc.NodeID), 0);
  const held = tables.service_registrations.group(alloc.ID);
  if (wanted.length !== held.size) return true;
  return wanted.some((registration) => {
    const existing = held.get(namespacedKey(registration.Namespace, registration.ID));
    return existing === undefined || !sameRegistration(existing, registration);
  });
}

/**
 * The clients of running allocations register their services as they are now, in one write
 * (`ServiceRegistration.Upsert`, then `DeleteByID` of those no longer wanted, as `UpdateWorkload`):
 * a registration that has not changed keeps its indexes (`upsertServiceRegistrationTxn`); an
 * allocation that no longer runs is left alone (its end drops its services).
 */
export async function syncServices(context: ServiceContext, allocIds: readonly string[]): Promise<void> {
  const { tables } = context.store;
  const stale = allocIds.filter((id) => {
    const alloc = tables.allocs.get(id);
    return alloc !== undefined && servicesStale(tables, alloc);
  });
  if (stale.length === 0) return;
  await context.store.write(
    ["service_registrations"],
    (state) => {
      for (const id of stale) {
        const alloc = tables.allocs.get(id);
        if (!runs(alloc)) continue;
        const job = allocJob(tables, alloc);
        if (job === undefined) continue;
        const wanted = registrationsOf(alloc, job, tables.nodes.get(alloc.NodeID), state.index);
        const keys = new Set(wanted.map((registration) => namespacedKey(registration.Namespace, registration.ID)));
        for (const key of [...state.service_registrations.group(alloc.ID).keys()]) if (!keys.has(key)) state.service_registrations.delete(key);
        for (const registration of wanted) {
          const existing = state.service_registrations.get(namespacedKey(registration.Namespace, registration.ID));
          if (existing !== undefined && sameRegistration(existing, registration)) continue;
          state.service_registrations.put(existing === undefined ? registration : { ...registration, CreateIndex: existing.CreateIndex });
        }
      }
    },
    "ServiceRegistrationUpsert",
  );
}

/** Whether a client status is terminal (`ClientTerminalStatus`): complete, failed or lost. */
export function clientTerminal(status: string): boolean {
  return status === "complete" || status === "failed" || status === "lost";
}

/** Drops an allocation's registrations (`deleteServiceRegistrationByAllocIDTxn`), in the write that made it client-terminal or deleted it. */
export function deregisterAllocServices(state: Transaction<"service_registrations">, allocId: string): void {
  for (const key of [...state.service_registrations.group(allocId).keys()]) state.service_registrations.delete(key);
}

/**
 * Removes one registration by ID (`ServiceRegistration.DeleteByID`); the write's index, or
 * undefined when there is none of that ID in the namespace (`service registration not found`).
 */
export async function deleteServiceRegistration(context: ServiceContext, namespace: string, id: string): Promise<number | undefined> {
  const key = namespacedKey(namespace, id);
  if (context.store.tables.service_registrations.get(key) === undefined) return undefined;
  const { index, result } = await context.store.write(["service_registrations"], (state) => state.service_registrations.delete(key), "ServiceRegistrationDeleteByID");
  return result ? index : undefined;
}
