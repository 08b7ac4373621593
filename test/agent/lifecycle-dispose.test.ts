/**
 * `await using agent = await startAgent()`: the agent stops when the block that holds it ends,
 * however it ends.
 */
import { describe, expect, it } from "vitest";
import { startAgent } from "../../src/server/index.js";
import { send } from "./support.js";

const answers = async (url: string) => (await send(`${url}/v1/status/leader`)).status;

describe("an agent held with await using", () => {
  it("is stopped at the end of the block", async () => {
    let url = "";
    {
      await using agent = await startAgent({ port: 0, demo: false, logLevel: "silent" });
      url = agent.url;
      expect(await answers(url)).toBe(200);
    }
    await expect(answers(url)).rejects.toThrow();
  });

  it("is stopped when the block throws; disposing is the one close", async () => {
    let url = "";
    let held: Awaited<ReturnType<typeof startAgent>> | undefined;
    await expect(
      (async () => {
        await using agent = await startAgent({ port: 0, demo: false, logLevel: "silent" });
        [url, held] = [agent.url, agent];
        throw new Error("the test failed");
      })(),
    ).rejects.toThrow("the test failed");
    await expect(answers(url)).rejects.toThrow();
    // Disposing again, or closing after, is harmless.
    await held![Symbol.asyncDispose]();
    await held!.close();
  });
});
