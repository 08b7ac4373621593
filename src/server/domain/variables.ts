/**
 * Variables as the API writes them (`structs.VariableDecrypted`, `structs.VariableMetadata`):
 * the lock's durations as Go's `Duration.String()` (`""` for zero), the lock shown to those who
 * may see it, the items to those who may read them.
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { goDurationText } from "../../go/duration.js";
import type { Variable, VariableLock } from "../state/model.js";

/** What an answer shows of a variable besides its metadata. */
export interface VariableView {
  /** The items (a variable's reader; a list and a conflict for one who may not read show none). */
  readonly items: boolean;
  /** The lock (a management token, or the lock's holder on its own write). */
  readonly lock: boolean;
}

/** A lock as the reference's `VariableLock.MarshalJSON` writes it. */
function presentLock(lock: VariableLock): Record<string, unknown> {
  return { TTL: lock.TTL === 0 ? "" : goDurationText(lock.TTL), LockDelay: lock.LockDelay === 0 ? "" : goDurationText(lock.LockDelay), ID: lock.ID };
}

/**
 * A variable in the reference's field order: `Namespace`, `Path`, `Lock` (omitted when none or
 * hidden), the indexes and times, then `Items` (omitted when empty or hidden).
 */
export function presentVariable(variable: Variable, view: VariableView): Record<string, unknown> {
  const out: Record<string, unknown> = { Namespace: variable.Namespace, Path: variable.Path };
  if (view.lock && variable.Lock !== null) out.Lock = presentLock(variable.Lock);
  out.CreateIndex = variable.CreateIndex;
  out.CreateTime = variable.CreateTime;
  out.ModifyIndex = variable.ModifyIndex;
  out.ModifyTime = variable.ModifyTime;
  if (view.items && Object.keys(variable.Items).length > 0) out.Items = variable.Items;
  return out;
}

/** What the variable list's filter sees: a variable's metadata (`structs.VariableMetadata`), its lock included. */
export const VARIABLE_METADATA: ObjectSchema = {
  kind: "object",
  fields: {
    Namespace: "string",
    Path: "string",
    Lock: { kind: "object", fields: { ID: "string", TTL: "string", LockDelay: "string" } },
    CreateIndex: "uint",
    CreateTime: "int",
    ModifyIndex: "uint",
    ModifyTime: "int",
  },
};
