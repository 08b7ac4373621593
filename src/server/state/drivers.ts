/**
 * A node's task drivers (`structs.Node.Drivers`, a `DriverInfo` per driver) as the reference's
 * client fingerprints them (`client/node_updater.go`, `applyNodeUpdatesFromDriver`): a driver it
 * detected is named by the attribute `driver.<name>` = `1` beside its `DriverInfo`, and its own
 * attributes (`driver.<name>.*`) are the node's too. The scheduler (`DriverChecker`) and the API
 * both read them through {@link driversOf}, so that a node whose drivers no test changed (its row
 * keeps none) answers the drivers its attributes name, detected and healthy since it registered.
 *
 * @module
 */
import { parseGoBool } from "../../go/strconv.js";
import type { DriverInfo, Node } from "./model.js";

/** The reference's description of a healthy driver (`drivers.DriverHealthy`). */
export const DRIVER_HEALTHY = "Healthy";

/** Go's zero `time.Time` as its JSON writes it (a node that never registered). */
const ZERO_TIME = "0001-01-01T00:00:00Z";

/** The driver an attribute names the detection of (`driver.<name>`, no further dot), if any. */
function driverOfAttribute(name: string): string | undefined {
  if (!name.startsWith("driver.")) return undefined;
  const driver = name.slice("driver.".length);
  return driver === "" || driver.includes(".") ? undefined : driver;
}

/** When the node's client registered it (its first event, `Node registered`), for the derived drivers' `UpdateTime`. */
function registeredAt(node: Pick<Node, "Events" | "StatusUpdatedAt">): string {
  const first = node.Events?.[0];
  if (first !== undefined) return first.Timestamp;
  return node.StatusUpdatedAt === undefined ? ZERO_TIME : new Date(node.StatusUpdatedAt * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * The drivers derived from each stored node row that keeps none, kept as long as the row: stored
 * rows are never changed in place but replaced, so a node a write changed is a new row and derives
 * again, and a list of unchanged nodes (each request presents every one) derives none.
 */
const derivedByRow = new WeakMap<object, Readonly<Record<string, DriverInfo>>>();

/**
 * How the drivers of a row that keeps none are derived from its attributes; {@link driversOf}
 * calls it once per row. An object's method, so that a test can count the derivations (a list of
 * unchanged nodes must do none).
 */
export const driverDerivation = {
  /**
   * The drivers the node's attributes name (`driver.<name>` a Go boolean: true is detected and
   * healthy, false neither; an attribute that is not a boolean names no driver, and the
   * scheduler's fallback reads it as the reference does), by name in name order, frozen: every
   * request that presents the row shares them.
   */
  derive(node: Pick<Node, "Attributes" | "Events" | "StatusUpdatedAt">): Readonly<Record<string, DriverInfo>> {
    const drivers: Record<string, DriverInfo> = {};
    const names = Object.keys(node.Attributes)
      .map(driverOfAttribute)
      .filter((name): name is string => name !== undefined)
      .sort();
    for (const name of names) {
      const detected = parseGoBool(node.Attributes[`driver.${name}`]!);
      if (!detected.ok) continue;
      const attributes: Record<string, string> = {};
      for (const [key, value] of Object.entries(node.Attributes)) if (key.startsWith(`driver.${name}.`)) attributes[key] = value;
      // The driver's own fingerprint writes its detection as a Go boolean; the node's COMPAT attribute is `1`.
      if (detected.value) attributes[`driver.${name}`] = "true";
      drivers[name] = Object.freeze({
        Attributes: Object.freeze(Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
        Detected: detected.value,
        Healthy: detected.value,
        HealthDescription: detected.value ? DRIVER_HEALTHY : "",
        UpdateTime: registeredAt(node),
      });
    }
    return Object.freeze(drivers);
  },
};

/**
 * The node's drivers, by name, in name order: those its row keeps, or those its attributes name
 * ({@link driverDerivation}), derived once per stored row.
 */
export function driversOf(node: Pick<Node, "Attributes" | "Drivers" | "Events" | "StatusUpdatedAt">): Readonly<Record<string, DriverInfo>> {
  if (node.Drivers != null) return node.Drivers;
  let drivers = derivedByRow.get(node);
  if (drivers === undefined) {
    drivers = driverDerivation.derive(node);
    derivedByRow.set(node, drivers);
  }
  return drivers;
}
