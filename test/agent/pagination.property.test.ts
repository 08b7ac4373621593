import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { job, settled, useAgent } from "./support.js";

const agent = useAgent({ demo: true, placementDelayMs: 60_000 });

const idArb = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,11}$/);

beforeAll(async () => {
  const ids = [...new Set(fc.sample(idArb, { numRuns: 40, seed: 7 }))];
  for (const [i, id] of ids.entries()) {
    await agent.register(job(id, { Type: i % 3 === 0 ? "batch" : "service", Priority: 10 + (i % 5) * 20 }));
  }
  // The scheduler's writes for them done: the pages and the whole list are read at rest.
  await settled(agent.url);
});

/** Fetches every page of `path` with `per_page`, following the next tokens. */
async function allPages(path: string, perPage: number): Promise<{ items: unknown[]; pages: number }> {
  const items: unknown[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const next = token === undefined ? "" : `&next_token=${encodeURIComponent(token)}`;
    const response = await agent.get(`${path}${separator}per_page=${perPage}${next}`);
    expect(response.status, response.text).toBe(200);
    const page = response.json<unknown[]>();
    expect(page.length).toBeLessThanOrEqual(perPage);
    const following = response.headers["x-svc-nexttoken"];
    // A token never repeats: paging always moves forward.
    expect(following === undefined || following !== token).toBe(true);
    if (following !== undefined) expect(page.length).toBe(perPage);
    token = following;
    items.push(...page);
    pages++;
  } while (token !== undefined && pages < 1000);
  return { items, pages };
}

const filters = ["", 'Type == "service"', "Priority == 50", 'ID matches "^[a-m]"', 'Status != "dead"'];

describe("pagination", () => {
  it("joins pages into exactly the unpaginated list, for any page size, order, namespace and filter", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/v1/jobs", "/v1/deployments"),
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        fc.constantFrom("default", "*", "prod"),
        fc.constantFrom(...filters),
        async (endpoint, perPage, reverse, namespace, filter) => {
          const query = [`namespace=${encodeURIComponent(namespace)}`];
          if (reverse) query.push("reverse=true");
          if (filter !== "" && endpoint === "/v1/jobs") query.push(`filter=${encodeURIComponent(filter)}`);
          const path = `${endpoint}?${query.join("&")}`;
          const whole = (await agent.get(path)).json<unknown[]>();
          const { items, pages } = await allPages(path, perPage);
          expect(items).toEqual(whole);
          expect(pages).toBe(Math.max(1, Math.ceil(whole.length / perPage)));
        },
      ),
      { numRuns: 120 },
    );
  });
});
