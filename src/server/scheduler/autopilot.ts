/**
 * The autopilot configuration's write (`Operator.AutopilotSetConfiguration`, the state store's
 * `AutopilotSetConfig` and `AutopilotCASConfig`): one transaction, with check-and-set.
 *
 * @module
 */
import type { AutopilotConfig } from "../state/model.js";
import { AUTOPILOT_CONFIG_NAME } from "../state/model.js";
import { autopilotConfigOf } from "../state/autopilot.js";
import type { Store } from "../state/store.js";

/** What an autopilot configuration write sets (the indexes are the write's). */
export type AutopilotConfigUpdate = Omit<AutopilotConfig, "Name" | "CreateIndex" | "ModifyIndex">;

/**
 * Writes the autopilot configuration. With `cas`, only when the stored configuration's
 * `ModifyIndex` is `cas` (the defaults count as written at index 1); otherwise nothing changes and
 * the answer is false, as `AutopilotCASConfig` answers. Without `cas` the answer is true.
 */
export async function setAutopilotConfig(store: Pick<Store, "write">, update: AutopilotConfigUpdate, cas: number | undefined): Promise<{ readonly updated: boolean; readonly index: number }> {
  const { index, result } = await store.write(["autopilot_config"], (state) => {
    const current = autopilotConfigOf(state);
    if (cas !== undefined && current.ModifyIndex !== cas) return false;
    state.autopilot_config.put({ ...update, Name: AUTOPILOT_CONFIG_NAME, CreateIndex: state.autopilot_config.get(AUTOPILOT_CONFIG_NAME)?.CreateIndex ?? state.index, ModifyIndex: state.index });
    return true;
  }, "Autopilot");
  return { updated: result, index };
}
