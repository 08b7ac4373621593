/**
 * The bare server of the agent benchmark (started by bench/bare-child.ts): plain `node:http`
 * answering each URL with the bytes the agent answered for it, recorded once, so that the
 * difference between the two is the agent's work, not what is sent. Its responses are the agent's
 * byte for byte, the Date aside (test/bench-bare.test.ts).
 */
import { createServer, type Server } from "node:http";

/** One recorded answer of the agent. */
export interface RecordedResponse {
  /** The request's path and query string. */
  readonly url: string;
  /** Whether the request accepted gzip (the agent answers the same URL with other bytes then). */
  readonly gzip: boolean;
  readonly status: number;
  /** The agent's headers, without those Node writes itself (Date, Connection, framing). */
  readonly headers: Readonly<Record<string, string>>;
  /** Whether the agent sent the body in chunks (a compressed stream) rather than framed by its length. */
  readonly chunked?: boolean;
  /** The body as the agent sent it (gzip-encoded when the request accepted gzip), in base64. */
  readonly body: string;
}

const keyOf = (url: string, gzip: boolean) => `${gzip ? "gzip" : "identity"} ${url}`;

/**
 * A server answering the `recorded` answers (by URL and whether the request accepts gzip), 404
 * with no body for anything else. Not listening yet.
 */
export function bareServer(recorded: readonly RecordedResponse[]): Server {
  const answers = new Map(
    recorded.map((answer) => {
      const bytes = Buffer.from(answer.body, "base64");
      // Framed as the agent framed it: by its length (without it, Node sends a head written before
      // the body in chunks), or in chunks.
      const headers = answer.chunked === true ? answer.headers : { ...answer.headers, "content-length": String(bytes.length) };
      return [keyOf(answer.url, answer.gzip), { ...answer, headers, bytes }];
    }),
  );
  // Node's keep-alive timeout, as the agent's server has (5 s: fastify sets its own only on a server it makes).
  return createServer((request, response) => {
    const gzip = /\bgzip\b/i.test(request.headers["accept-encoding"] ?? "");
    const answer = answers.get(keyOf(request.url ?? "", gzip));
    if (answer === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(answer.status, answer.headers).end(answer.bytes);
  });
}
