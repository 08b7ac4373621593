/**
 * The cluster's autopilot configuration (`structs.AutopilotConfig`, one row), with the defaults
 * the reference's leader writes when it first takes office (`nomad/config.go`, `DefaultConfig`).
 * The API and the writes read it through {@link autopilotConfigOf}, so that a store that never had
 * it written (a new one, an older snapshot put back) answers the defaults.
 *
 * @module
 */
import type { AutopilotConfig } from "./model.js";
import { AUTOPILOT_CONFIG_NAME } from "./model.js";
import type { ReadTable } from "./store.js";

/**
 * The autopilot configuration of a cluster that never had one written: the reference's server
 * defaults (dead servers cleaned up, 200 ms last-contact threshold, 250 trailing logs, 10 s
 * stabilization), at index 1, where the agent's state begins.
 */
export const DEFAULT_AUTOPILOT_CONFIG: AutopilotConfig = {
  Name: AUTOPILOT_CONFIG_NAME,
  CleanupDeadServers: true,
  ServerStabilizationTime: 10_000_000_000,
  LastContactThreshold: 200_000_000,
  MaxTrailingLogs: 250,
  MinQuorum: 0,
  EnableRedundancyZones: false,
  DisableUpgradeMigration: false,
  EnableCustomUpgrades: false,
  CreateIndex: 1,
  ModifyIndex: 1,
};

/** The autopilot configuration now: the stored row, or the defaults. */
export function autopilotConfigOf(tables: { readonly autopilot_config: Pick<ReadTable<AutopilotConfig>, "get"> }): AutopilotConfig {
  return tables.autopilot_config.get(AUTOPILOT_CONFIG_NAME) ?? DEFAULT_AUTOPILOT_CONFIG;
}
