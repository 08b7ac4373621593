/**
 * The results of an allocation's native service checks, as its client keeps them
 * (`client/serviceregistration/checks/`: the check watcher's latest result of each `nomad`
 * service's checks, by check ID, `GET /v1/client/allocation/<id>/checks`). The simulated tasks
 * answer no check for real, so the result is what the job says ({@link META_CHECK_STATUS}):
 *
 * - `success` (the default): an HTTP check answered `200` (`nomad: http ok`), a TCP check
 *   connected (`nomad: tcp ok`);
 * - `failure`: an HTTP check answered `500`, a TCP check was refused;
 * - `pending`: not run yet (`nomad: waiting to run`), as every check is before the allocation runs.
 *
 * A check's ID is the reference's (`structs.NomadCheckID`: a SHA-256 of the allocation, group,
 * task and the check's settings); its `Timestamp` is when the allocation started (seconds since
 * the epoch), the agent's clock's time of the check's last run. An allocation that does not run
 * has none, as the reference's client, which purges them when the allocation stops.
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import { present } from "../../structs/derive.js";
import { CHECK_QUERY_RESULT } from "../../structs/client.js";
import type { Allocation, Job, JsonObject } from "../state/model.js";
import { tasksRunning } from "./client-actions.js";

/** The job `Meta` key that says how its allocations' checks fare: `success` (the default), `failure` or `pending`. */
export const META_CHECK_STATUS = "bexpr.check_status";

/** The provider of the services whose checks the client runs itself. */
const NOMAD_PROVIDER = "nomad";

/** A decoded list field: its objects, or none. */
function objectsOf(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter((each): each is JsonObject => typeof each === "object" && each !== null) : [];
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A duration field, in nanoseconds (a bigint past 2^53). */
function nanoseconds(value: unknown): bigint {
  return typeof value === "bigint" ? value : typeof value === "number" && Number.isInteger(value) ? BigInt(value) : 0n;
}

/** Go's `binary.Write` of an int64, little-endian, as `hashDuration` writes a duration. */
function hashDuration(hash: Hash, ns: bigint): void {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64LE(BigInt.asIntN(64, ns));
  hash.update(bytes);
}

/** `structs.NomadCheckID`: the check's settings hashed in the reference's order. */
export function nomadCheckId(allocId: string, group: string, check: JsonObject): string {
  const hash = createHash("sha256");
  for (const part of [allocId, group, text(check.TaskName), text(check.Name), text(check.Type), text(check.PortLabel), text(check.OnUpdate), text(check.AddressMode)]) hash.update(part);
  hashDuration(hash, nanoseconds(check.Interval));
  hashDuration(hash, nanoseconds(check.Timeout));
  for (const part of [text(check.Protocol), text(check.Path), text(check.Method), String(check.TLSSkipVerify === true)]) hash.update(part);
  return hash.digest("hex");
}

/** The outcome the job scripts for its checks ({@link META_CHECK_STATUS}). */
function scriptedStatus(job: Job | null): "success" | "failure" | "pending" {
  const status = job?.Meta?.[META_CHECK_STATUS];
  return status === "failure" || status === "pending" ? status : "success";
}

/** One check's result (`structs.CheckQueryResult`). */
function result(alloc: Allocation, group: string, task: string, service: JsonObject, check: JsonObject, status: "success" | "failure" | "pending", timestamp: number): JsonObject {
  const http = text(check.Type) === "http";
  const outputs = {
    success: http ? "nomad: http ok" : "nomad: tcp ok",
    failure: http ? "Internal Server Error" : "dial tcp: connect: connection refused",
    pending: "nomad: waiting to run",
  };
  const statusCode = status === "pending" || !http ? 0 : status === "success" ? 200 : 500;
  return present(CHECK_QUERY_RESULT, {
    ID: nomadCheckId(alloc.ID, group, check),
    Mode: text(check.OnUpdate) === "ignore" ? "readiness" : "healthiness",
    Status: status,
    StatusCode: statusCode,
    Output: outputs[status],
    Timestamp: timestamp,
    Group: group,
    Task: text(check.TaskName) || task,
    Service: text(service.Name),
    Check: text(check.Name),
  });
}

/**
 * The latest result of each check of the allocation's `nomad` services (those of its group and
 * of its tasks), by check ID: `{}` for an allocation without any, or whose tasks do not run.
 * `job` is the allocation's version of its job.
 */
export function allocChecks(alloc: Allocation, job: Job | null): JsonObject {
  const results: JsonObject = {};
  const run = alloc.TaskRun;
  const group = job?.TaskGroups.find((each) => each.Name === alloc.TaskGroup);
  if (group === undefined || !tasksRunning(run) || alloc.ClientStatus !== "running") return results;
  const status = scriptedStatus(job);
  const timestamp = Math.floor(run.StartedAt! / 1000);
  const workloads: [string, JsonObject[]][] = [["", objectsOf(group.Services)]];
  for (const task of objectsOf(group.Tasks)) workloads.push([text(task.Name), objectsOf(task.Services)]);
  for (const [task, services] of workloads) {
    for (const service of services) {
      if (text(service.Provider) !== NOMAD_PROVIDER) continue;
      for (const check of objectsOf(service.Checks)) {
        const each = result(alloc, group.Name, task, service, check, status, timestamp);
        results[each.ID as string] = each;
      }
    }
  }
  return results;
}
