/**
 * The bare server of the agent benchmark (bench/agent.ts): plain `node:http` answering each URL
 * with the bytes the agent answered for it (status, headers, body), recorded once by the parent,
 * so that the difference between the two is the agent's work, not the size of what is sent.
 * Started with `fork()`: `node bare-child.js <recorded responses JSON file>`; it sends its URL
 * and exits when the parent goes away.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One recorded answer of the agent. */
export interface RecordedResponse {
  /** The request's path and query string. */
  readonly url: string;
  /** Whether the request accepted gzip (the agent answers the same URL with other bytes then). */
  readonly gzip: boolean;
  readonly status: number;
  /** The agent's headers, without those Node writes itself (Date, Connection, framing). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as the agent sent it (gzip-encoded when the request accepted gzip), in base64. */
  readonly body: string;
}

/** The message the child sends once it listens. */
export interface BareChildMessage {
  readonly kind: "listening";
  readonly url: string;
}

/**
 * Longer than the pauses between a client's runs (the other server's turn), so that the bare
 * server, like the agent (fastify's 72 s), does not close idle keep-alive connections meanwhile.
 */
const KEEP_ALIVE_TIMEOUT_MS = 75_000;

const keyOf = (url: string, gzip: boolean) => `${gzip ? "gzip" : "identity"} ${url}`;

const file = process.argv[2];
if (file === undefined) throw new Error("usage: bare-child.js <recorded responses JSON file>");
const recorded = JSON.parse(readFileSync(file, "utf8")) as readonly RecordedResponse[];
const answers = new Map(recorded.map((answer) => [keyOf(answer.url, answer.gzip), { ...answer, bytes: Buffer.from(answer.body, "base64") }]));

const server = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (request, response) => {
  const gzip = /\bgzip\b/i.test(request.headers["accept-encoding"] ?? "");
  const answer = answers.get(keyOf(request.url ?? "", gzip));
  if (answer === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(answer.status, answer.headers).end(answer.bytes);
});
server.listen(0, "127.0.0.1", () => {
  const { address, port } = server.address() as AddressInfo;
  process.send?.({ kind: "listening", url: `http://${address}:${port}` } satisfies BareChildMessage);
});
// Without its parent, nobody would stop it.
process.on("disconnect", () => process.exit(0));
