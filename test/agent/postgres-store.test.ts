/**
 * A shared store's reads and writes with the database's answers or notifications held back: reads
 * share barrier queries (`PostgresStore.catchUp`), and a read never relies on a query sent before
 * it came (which may not see a write committed in between); a batch stored optimistically on a copy
 * that another agent's write has overtaken is refused, and applied again on the state as it is.
 */
import { describe, expect, it } from "vitest";
import type { Database, TextRow } from "../../src/server/state/postgres/database.js";
import { PostgresStore } from "../../src/server/state/postgres/store.js";
import { ON_POSTGRES, openTestDatabase, testStore } from "./support.js";

/** The statement of a barrier. */
const BARRIER = /^SELECT index::text AS index FROM "[a-z0-9_]+"\.state$/;

/**
 * A database whose barrier answers wait until the test releases them (each query is run at
 * once: only its answer is held), and whose notifications the test may hold as well.
 */
function held(database: Database): { database: Database; barriers: () => number; release: () => void; quiet: (on: boolean) => void } {
  let count = 0;
  let waiting: (() => void)[] = [];
  let gate: Promise<void> | undefined;
  let silent = false;
  const wrapped: Database = {
    ...database,
    get listening() {
      return database.listening;
    },
    async query(sql: string, params?: readonly unknown[]): Promise<TextRow[]> {
      if (!BARRIER.test(sql)) return database.query(sql, params);
      count++;
      const answer = await database.query(sql, params);
      if (gate !== undefined) await gate;
      return answer;
    },
    transaction: (work) => database.transaction(work),
    listTransaction: (work) => database.listTransaction(work),
    listen: (channel, onPayload, onReconnect) => database.listen(channel, (payload) => void (silent || onPayload(payload)), onReconnect),
    close: () => database.close(),
  };
  return {
    database: wrapped,
    barriers: () => count,
    release: () => {
      const released = waiting;
      waiting = [];
      gate = undefined;
      for (const go of released) go();
    },
    quiet: (on) => {
      silent = on;
      gate = on ? new Promise<void>((resolve) => waiting.push(resolve)) : gate;
    },
  };
}

const namespace = (name: string, index: number) => ({ Name: name, Description: "", Quota: "", Meta: null, CreateIndex: index, ModifyIndex: index });

describe.runIf(ON_POSTGRES)("the barrier of consistent reads", () => {
  it("is shared by the reads that come while one is under way, and never one sent before a read came", async () => {
    const { store, drop } = await testStore();
    const schema = (store as { schema: string }).schema;
    const [readerDatabase, writerDatabase] = [await openTestDatabase(store), await openTestDatabase(store)];
    const reader = held(readerDatabase);
    const [readerStore, writerStore] = [await PostgresStore.open(reader.database, { schema }), await PostgresStore.open(writerDatabase, { schema })];
    try {
      await readerStore.catchUp();
      // A barrier's query is answered, its answer held; meanwhile another agent writes, and the reader hears nothing of it.
      reader.quiet(true);
      const before = reader.barriers();
      const first = readerStore.catchUp();
      await expect.poll(() => reader.barriers()).toBe(before + 1);
      const { index } = await writerStore.write(["namespaces"], (state) => state.namespaces.put(namespace("after-the-first-query", state.index)), "JobRegister");
      // Reads that come now wait for the next barrier, one query for all of them.
      const later = Array.from({ length: 20 }, () => readerStore.catchUp());
      reader.release();
      reader.quiet(false);
      await first;
      await Promise.all(later);
      expect(reader.barriers()).toBe(before + 2);
      // The second query was sent after the write was committed: the reads that waited for it see the write.
      expect(readerStore.index).toBeGreaterThanOrEqual(index);
      expect(readerStore.tables.namespaces.get("after-the-first-query")).toBeDefined();
    } finally {
      readerStore.close();
      writerStore.close();
      await Promise.all([readerDatabase.close(), writerDatabase.close()]);
      await drop();
    }
  });

  it("applies a write again when another agent wrote since the copy's index: nothing of the refused batch is stored", async () => {
    const { store, drop } = await testStore();
    const schema = (store as { schema: string }).schema;
    const [aDatabase, bDatabase] = [await openTestDatabase(store), await openTestDatabase(store)];
    const b = held(bDatabase);
    const [alpha, beta] = [await PostgresStore.open(aDatabase, { schema }), await PostgresStore.open(b.database, { schema })];
    try {
      // Beta hears nothing of alpha's writes: its copy is behind, and it does not know.
      b.quiet(true);
      b.release();
      const { index: first } = await alpha.write(["namespaces"], (state) => state.namespaces.put(namespace("first", state.index)), "JobRegister");
      expect(beta.index).toBeLessThan(first);
      let applied = 0;
      const seen: boolean[] = [];
      const { index, result } = await beta.write(["namespaces"], (state) => {
        applied++;
        seen.push(state.namespaces.get("first") !== undefined);
        state.namespaces.put(namespace("second", state.index));
        return state.index;
      }, "JobRegister");
      // Applied on the stale copy (refused: the index had moved), then on the state brought up to date.
      expect(applied).toBe(2);
      expect(seen).toEqual([false, true]);
      expect([index, result]).toEqual([first + 1, first + 1]);
      b.quiet(false);
      // One row of "second", at its one index: alpha reads it as beta wrote it.
      await alpha.catchUp();
      expect(alpha.tables.namespaces.get("second")).toMatchObject({ Name: "second", CreateIndex: first + 1 });
      const rows = await aDatabase.query(`SELECT key, modify_index::text AS modified FROM "${schema}".rows WHERE tbl = 'namespaces' AND key IN ('"first"', '"second"') ORDER BY key`);
      expect(rows).toEqual([
        { key: '"first"', modified: String(first) },
        { key: '"second"', modified: String(first + 1) },
      ]);
    } finally {
      alpha.close();
      beta.close();
      await Promise.all([aDatabase.close(), bDatabase.close()]);
      await drop();
    }
  });
});
