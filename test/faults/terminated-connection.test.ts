/**
 * A connection the server terminates as it is handed out ends nothing. PostgreSQL's last answer to
 * a new connection (`ReadyForQuery`) and the notice of its termination (`FATAL 57P01`, as
 * `pg_terminate_backend` or a fast shutdown sends it) can arrive in one read: `pg` then raises
 * `error` on the connection after the pool handed it out and stopped listening, before its taker
 * could listen, and an error nobody hears ends the process (it ended agents in the fault suite).
 *
 * The server here is a peer of the test's own that speaks just enough of PostgreSQL's protocol
 * (version 3) to do that, every time: no real server can be made to time it so.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DatabaseUnavailableError } from "../../src/server/index.js";
import { connectServer } from "../../src/server/state/postgres/database.js";

/** One message of the protocol: its type byte, its length (itself included), its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** `ReadyForQuery` (idle), then `ErrorResponse` FATAL 57P01, in one write, then the end. */
function terminateAsReady(socket: Socket): void {
  const authenticationOk = message("R", Buffer.from([0, 0, 0, 0]));
  const ready = message("Z", Buffer.from("I", "latin1"));
  const fields = ["SFATAL", "VFATAL", "C57P01", "Mterminating connection due to administrator command"];
  const fatal = message("E", Buffer.concat([...fields.map((field) => Buffer.from(`${field}\0`, "utf8")), Buffer.from([0])]));
  socket.end(Buffer.concat([authenticationOk, ready, fatal]));
}

let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.on("error", () => {});
    // The startup message (no type byte: a length, then the rest) is all the client sends first.
    socket.once("data", () => terminateAsReady(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it("fails the statement with DatabaseUnavailableError, and the process goes on", async () => {
  const database = await connectServer(`postgres://bexpr@127.0.0.1:${port}/bexpr`, { holdMs: 300 });
  try {
    await expect(database.query("SELECT 1")).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(database.transaction(async (session) => session.query("SELECT 1"))).rejects.toBeInstanceOf(DatabaseUnavailableError);
    // Each attempt was a new connection, terminated as it was handed out; the hold tried again.
    expect(connections).toBeGreaterThanOrEqual(3);
  } finally {
    await database.close();
  }
  // An unheard error would have ended this process (vitest reports it as an unhandled error).
  await new Promise((resolve) => setTimeout(resolve, 100));
});
