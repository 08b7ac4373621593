/** The agent's random IDs (`base/ids.ts`): version-4 UUIDs, as the reference's, made flat. */
import { describe, expect, it } from "vitest";
import { newUuid } from "../../src/server/base/ids.js";

describe("newUuid", () => {
  it("makes distinct lower-case version-4 UUIDs", () => {
    const ids = Array.from({ length: 1000 }, newUuid);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
