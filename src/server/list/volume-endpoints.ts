/**
 * The lists of host volumes (`GET /v1/volumes?type=host`, `HostVolume.List`) and of sticky volume
 * claims (`GET /v1/volumes/claims`, `TaskGroupHostVolumeClaim.List`), through the one list
 * pipeline: by namespace then ID with `<Namespace>.<ID>` tokens (`NamespaceIDTokenizer`), `prefix`
 * on the name or the ID (volumes) or on the ID (claims), the reference's own selections
 * (`node_id`, `node_pool`; `job_id`, `task_group`, `volume_name`), `filter` beside them, and
 * `host-volume-read` in the namespace.
 *
 * @module
 */
import { compareStrings } from "../../go/order.js";
import { stringifyJson } from "../../json.js";
import { schemaOf, present } from "../../structs/derive.js";
import { HOST_VOLUME, HOST_VOLUME_STUB, TASK_GROUP_HOST_VOLUME_CLAIM } from "../../structs/host-volume.js";
import type { Caller } from "../domain/acl.js";
import type { HostVolume, HostVolumeClaim } from "../state/model.js";
import { ALL_NAMESPACES, type RowRange } from "../state/store.js";
import type { ItemOptions, ListEndpoint } from "./endpoints.js";

/** Whether the caller may read host volumes in `namespace` (`*`: in any namespace), as the reference's `NamespaceValidator` is asked with the request's namespace. */
export function readsHostVolumes(caller: Caller, namespace: string): boolean {
  if (caller.management) return true;
  return namespace === ALL_NAMESPACES ? caller.permissions.allowsAnywhere("host-volume-read") : caller.permissions.allows(namespace, "host-volume-read");
}

/**
 * The reference answers an empty list, not a 403, to a caller who may not read host volumes in
 * the request's namespace (its selector turns every row down); with `*`, each row's namespace is asked.
 */
function hostVolumeAccess<Row extends { readonly Namespace: string }>(caller: Caller, namespace: string): (row: Row) => boolean {
  if (caller.management) return () => true;
  if (!readsHostVolumes(caller, namespace)) return () => false;
  return namespace === ALL_NAMESPACES ? (row) => caller.permissions.allows(row.Namespace, "host-volume-read") : () => true;
}

/** The rows of a table ordered by namespace then ID: one namespace's, or every one's (a segment each), those `keep` keeps. */
function namespacedScan<Row extends { readonly Namespace: string; readonly ID: string }>(all: RowRange<Row>, namespace: string, keep: (row: Row) => boolean): RowRange<Row> {
  const rows: Row[] = [];
  const segments: number[] = [];
  let current: string | undefined;
  for (let position = 0; position < all.size; position++) {
    const row = all.at(position);
    if (namespace !== ALL_NAMESPACES && row.Namespace !== namespace) continue;
    if (!keep(row)) continue;
    if (current !== undefined && row.Namespace !== current) segments.push(rows.length);
    current = row.Namespace;
    rows.push(row);
  }
  return { size: rows.length, at: (position) => rows[position]!, segments };
}

/** The `<Namespace>.<ID>` tokens: within a namespace they grow with the ID, each namespace a segment. */
const NAMESPACE_ID_TOKENS = {
  token: (row: { readonly Namespace: string; readonly ID: string }) => `${row.Namespace}.${row.ID}`,
  compare: compareStrings,
  seekable: () => true,
} as const;

/** The list's own selections from the query: each parameter read into the field it selects on. */
function fieldsOf(query: URLSearchParams, parameters: Readonly<Record<string, string>>): ItemOptions {
  const fields: Record<string, string> = {};
  for (const [parameter, field] of Object.entries(parameters)) {
    const value = query.get(parameter) ?? "";
    if (value !== "") fields[field] = value;
  }
  return { meta: false, fields };
}

/** A row test of the selections (undefined: none). */
function selectionOf<Row>(options: ItemOptions): ((row: Row) => boolean) | undefined {
  const entries = Object.entries(options.fields ?? {});
  if (entries.length === 0) return undefined;
  // The cast: the selected fields are string fields of the row, by their Go names.
  return (row) => entries.every(([field, value]) => (row as unknown as Record<string, unknown>)[field] === value);
}

const hostVolumeStubJson = new WeakMap<HostVolume, string>();

/** `HostVolume.Stub`. */
export function hostVolumeStub(volume: HostVolume): Record<string, unknown> {
  return present(HOST_VOLUME_STUB, volume);
}

/** `GET /v1/volumes?type=host`: the stubs of the dynamic host volumes. */
export const hostVolumesEndpoint: ListEndpoint<HostVolume> = {
  name: "host_volume",
  tables: ["host_volumes"],
  access: hostVolumeAccess,
  // The filter sees the volume (the reference's paginator filters the full struct before its stub).
  schema: schemaOf(HOST_VOLUME),
  filterWithSelections: true,
  rows: (store, namespace, prefix) => namespacedScan(store.tables.host_volumes.all(), namespace, (volume) => volume.Name.startsWith(prefix) || volume.ID.startsWith(prefix)),
  ...NAMESPACE_ID_TOKENS,
  filterTarget: (volume) => volume,
  itemOptions: (query) => fieldsOf(query, { node_id: "NodeID", node_pool: "NodePool" }),
  select: selectionOf,
  item: (volume) => hostVolumeStub(volume),
  itemJson: (volume) => {
    let json = hostVolumeStubJson.get(volume);
    if (json === undefined) hostVolumeStubJson.set(volume, (json = stringifyJson(hostVolumeStub(volume))));
    return json;
  },
};

/** `GET /v1/volumes/claims`: the sticky volume claims, whole. */
export const hostVolumeClaimsEndpoint: ListEndpoint<HostVolumeClaim> = {
  name: "host_volume_claim",
  tables: ["host_volume_claims"],
  access: hostVolumeAccess,
  schema: schemaOf(TASK_GROUP_HOST_VOLUME_CLAIM),
  filterWithSelections: true,
  rows: (store, namespace, prefix) => namespacedScan(store.tables.host_volume_claims.all(), namespace, (claim) => claim.ID.startsWith(prefix)),
  ...NAMESPACE_ID_TOKENS,
  filterTarget: (claim) => claim,
  itemOptions: (query) => fieldsOf(query, { job_id: "JobID", task_group: "TaskGroupName", volume_name: "VolumeName" }),
  select: selectionOf,
  item: (claim) => present(TASK_GROUP_HOST_VOLUME_CLAIM, claim),
  itemJson: (claim) => stringifyJson(present(TASK_GROUP_HOST_VOLUME_CLAIM, claim)),
};
