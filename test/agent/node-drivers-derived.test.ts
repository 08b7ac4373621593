/**
 * A node's derived drivers (issue 39): the drivers of a node row that keeps none are derived from
 * its attributes once per stored row, not on each request that presents the node, so that a list
 * of unchanged nodes derives none; a write to a node (a new row) derives its drivers again, and
 * only its own. Counted by spying on the derivation, over real sockets, on the manual clock.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { driverDerivation } from "../../src/server/state/drivers.js";
import { useAgent } from "./support.js";

type Item = Record<string, unknown>;

const NODES = 3;

const agent = useAgent({ clock: "manual", nodes: NODES });

/** The IDs of the agent's nodes, from the list. */
async function nodeIds(): Promise<string[]> {
  return (await agent.get("/v1/nodes")).json<Item[]>().map((stub) => String(stub.ID));
}

/**
 * Each way a request presents every node (or one), as paths for the `round`-th read: the lists
 * are asked with a page size of their own each round, so that each is an answer the list's answer
 * cache does not hold and the nodes are presented again (the page holds every node all the same).
 */
const READS: { readonly name: string; readonly paths: (ids: string[], round: number) => string[] }[] = [
  { name: "the node list with the OS", paths: (_ids, round) => [`/v1/nodes?os=true&per_page=${100 + round}`] },
  { name: "the node list with resources", paths: (_ids, round) => [`/v1/nodes?resources=true&per_page=${100 + round}`] },
  { name: "each node read on its own", paths: (ids) => ids.map((id) => `/v1/node/${id}`) },
];

/** The drivers each read answers, by path. */
async function driversRead(paths: string[]): Promise<unknown[]> {
  return Promise.all(
    paths.map(async (path) => {
      const response = await agent.get(path);
      expect(response.status, response.text).toBe(200);
      const body = response.json<Item | Item[]>();
      return Array.isArray(body) ? body.map((stub) => stub.Drivers) : body.Drivers;
    }),
  );
}

describe("a node's drivers derived once per stored row", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(READS)("derives none when $name is read again with the nodes unchanged", async ({ paths }) => {
    const ids = await nodeIds();
    expect(ids).toHaveLength(NODES);
    const first = await driversRead(paths(ids, 0));
    const derive = vi.spyOn(driverDerivation, "derive");
    const again = await driversRead(paths(ids, 1));
    const andAgain = await driversRead(paths(ids, 2));
    expect(derive).toHaveBeenCalledTimes(0);
    expect(again).toEqual(first);
    expect(andAgain).toEqual(first);
    // The answer is the drivers the attributes name, not an empty map the cache made up.
    expect(JSON.stringify(first)).toContain('"docker":{"Attributes":{"driver.docker":"true"}');
  });

  it("derives again only the drivers of a node a write changed, as they were", async () => {
    const ids = await nodeIds();
    const before = await driversRead(["/v1/nodes?os=true&per_page=200"]);
    const derive = vi.spyOn(driverDerivation, "derive");
    const response = await agent.put(`/v1/node/${ids[0]}/eligibility`, { NodeID: ids[0], Eligibility: "ineligible" });
    expect(response.status, response.text).toBe(200);
    const after = await driversRead(["/v1/nodes?os=true&per_page=201"]);
    expect(derive).toHaveBeenCalledTimes(1);
    expect(derive.mock.calls[0]![0]).toMatchObject({ ID: ids[0], SchedulingEligibility: "ineligible" });
    expect(after).toEqual(before);
    await driversRead(["/v1/nodes?os=true&per_page=202", `/v1/node/${ids[0]}`]);
    expect(derive).toHaveBeenCalledTimes(1);
  });
});
