/**
 * The bare server of the agent benchmark (bench/agent.ts): plain `node:http` answering each URL
 * with the bytes the agent answered for it (status, headers, body), recorded once by the parent,
 * so that the difference between the two is the agent's work, not the size of what is sent.
 * Started with `fork()`: `node bare-child.js <recorded responses JSON file>`; it sends its URL
 * and exits when the parent goes away.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { bareServer, type RecordedResponse } from "./bare.js";

export type { RecordedResponse } from "./bare.js";

/** The message the child sends once it listens. */
export interface BareChildMessage {
  readonly kind: "listening";
  readonly url: string;
}

const file = process.argv[2];
if (file === undefined) throw new Error("usage: bare-child.js <recorded responses JSON file>");
const server = bareServer(JSON.parse(readFileSync(file, "utf8")) as readonly RecordedResponse[]);
server.listen(0, "127.0.0.1", () => {
  const { address, port } = server.address() as AddressInfo;
  process.send?.({ kind: "listening", url: `http://${address}:${port}` } satisfies BareChildMessage);
});
// Without its parent, nobody would stop it.
process.on("disconnect", () => process.exit(0));
