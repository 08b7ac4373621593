/**
 * The port's own instruments, checked against what Go does: the encoder writes Go's bytes, the
 * decoder fails where Go's fails with Go's message, and the client puts Go's request on the wire
 * (read here by a bare TCP server, so nothing in between rewrites it).
 */
import { createServer, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { decodeGo, decodeStruct, encodeGo, encodeStruct, formatDuration, parseDuration } from "./go-json.js";
import { GoClient, HEADER_NAMES, pathEscape, queryEscape } from "./go-client.js";
import { testJob } from "./support.js";

describe("the Go encoder", () => {
  it("writes a register request as json.Encoder does: declaration order, nil as null, omitempty dropped, a final newline", () => {
    // Checked by hand against api.JobRegisterRequest, api.Job, api.TaskGroup and api.Task.
    const golden = readFileSync(new URL("golden/register-test-job.json", import.meta.url), "utf8");
    expect(encodeStruct({ Job: testJob() }, "JobRegisterRequest")).toBe(golden);
  });

  it("writes ACLToken as its MarshalJSON does: ExpirationTTL first, as duration text", () => {
    expect(encodeStruct({ Name: "foo", Type: "client", Policies: ["foo1"], ExpirationTTL: 3_600_000_000_000 }, "ACLToken")).toBe(
      '{"ExpirationTTL":"1h0m0s","AccessorID":"","SecretID":"","Name":"foo","Type":"client","Policies":["foo1"],"Roles":null,"Global":false,"CreateTime":"0001-01-01T00:00:00Z","CreateIndex":0,"ModifyIndex":0}\n',
    );
    expect(encodeStruct({}, "ACLToken")).toMatch(/^\{"ExpirationTTL":"","AccessorID":""/);
  });

  it.each([
    ["escapes HTML characters and controls as Go does", '<a&b>"\\\n\t\b\f\u0001\u2028', "string", '"\\u003ca\\u0026b\\u003e\\"\\\\\\n\\t\\b\\f\\u0001\\u2028"'],
    ["writes a lone surrogate as U+FFFD", "a\ud800b", "string", '"a\\ufffdb"'],
    ["sorts map keys by their bytes", { b: "1", a: "2", "é": "3", z: "4" }, "map[string]string", '{"a":"2","b":"1","z":"4","é":"3"}'],
    ["writes large floats with an exponent", 1e21, "float64", "1e+21"],
    ["writes small floats with an exponent", 1e-7, "float64", "1e-7"],
    ["writes a float32 in its shortest form", 0.1, "float32", "0.1"],
    ["writes an int64 beyond 2^53 exactly", 1795733026173068001n, "int64", "1795733026173068001"],
    ["writes a nil slice as null", undefined, "[]string", "null"],
    ["writes bytes in base64", Uint8Array.from([1, 2, 3]), "[]byte", '"AQID"'],
    ["writes any's maps with sorted keys", { meta: "data", a: 1 }, "map[string]any", '{"a":1,"meta":"data"}'],
  ])("%s", (_name, value, type, expected) => {
    expect(encodeGo(value, type)).toBe(`${expected}\n`);
  });

  it("drops omitempty fields only when empty", () => {
    expect(encodeStruct({ Job: null, EnforceIndex: true, JobModifyIndex: 0 }, "JobRegisterRequest")).toBe('{"Submission":null,"Job":null,"EnforceIndex":true,"Region":"","Namespace":"","SecretID":""}\n');
  });
});

describe("the Go decoder", () => {
  it.each([
    ["a string into an int", { Priority: "1" }, "Job", "json: cannot unmarshal string into Go struct field Job.Priority of type int"],
    ["a fraction into an int", { TaskGroups: [{ Count: 1.5 }] }, "Job", "json: cannot unmarshal number 1.5 into Go struct field TaskGroup.TaskGroups.Count of type int"],
    ["an int8 out of range", { Affinities: [{ Weight: 200 }] }, "Job", "json: cannot unmarshal number 200 into Go struct field Affinity.Affinities.Weight of type int8"],
    ["a negative uint64", { CreateIndex: -1 }, "Deployment", "json: cannot unmarshal number -1 into Go struct field Deployment.CreateIndex of type uint64"],
    ["a uint64 beyond 64 bits", { CreateIndex: 18446744073709551616n }, "Deployment", "json: cannot unmarshal number 18446744073709551616 into Go struct field Deployment.CreateIndex of type uint64"],
    ["through a map of structs", [{ JobSummary: { Summary: { g: { Queued: "a" } } } }], "[]*JobListStub", "json: cannot unmarshal string into Go struct field TaskGroupSummary.JobSummary.Summary.Queued of type int"],
    ["into a promoted field", { LastIndex: "1" }, "JobRegisterResponse", "json: cannot unmarshal string into Go struct field JobRegisterResponse.QueryMeta.LastIndex of type uint64"],
    ["a string where a list is due", "x", "[]*JobListStub", "json: cannot unmarshal string into Go value of type []*api.JobListStub"],
    ["an object where a string is due", { Name: {} }, "Namespace", "json: cannot unmarshal object into Go struct field Namespace.Name of type string"],
    ["a number where a map is due", { Meta: 1 }, "Namespace", "json: cannot unmarshal number into Go struct field Namespace.Meta of type map[string]string"],
    ["a time that is not RFC 3339", { RequireProgressBy: "yesterday" }, "DeploymentState", 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse'],
    ["a time that is not a string", { CreateTime: 1 }, "ACLToken", "Time.UnmarshalJSON: input is not a JSON string"],
  ])("fails on %s, with Go's message", (_name, value, type, message) => {
    expect(() => decodeGo(value, type)).toThrow(message);
  });

  it("fills every field, matches keys without case, ignores unknown ones and nulls where Go ignores them", () => {
    const summary = decodeStruct(parseJson('{"jobid":"web","Namespace":null,"Children":null,"Unknown":[1],"CreateIndex":3}'), "JobSummary");
    expect(summary).toEqual({ JobID: "web", Namespace: "", Summary: null, Children: null, CreateIndex: 3, ModifyIndex: 0 });
  });

  it("keeps int64 values beyond 2^53 exact", () => {
    const stub = decodeStruct(parseJson('{"SubmitTime":1795733026173068001}'), "JobListStub");
    expect(stub.SubmitTime).toBe(1795733026173068001n);
  });

  it("reads ACLToken's ExpirationTTL from text or a number, as its UnmarshalJSON does", () => {
    expect(decodeStruct({ ExpirationTTL: "10m0s" }, "ACLToken").ExpirationTTL).toBe(600_000_000_000);
    expect(decodeStruct({ ExpirationTTL: 5 }, "ACLToken").ExpirationTTL).toBe(5);
    expect(decodeStruct({ ExpirationTTL: true }, "ACLToken").ExpirationTTL).toBe(0);
    expect(() => decodeStruct({ ExpirationTTL: "soon" }, "ACLToken")).toThrow('time: invalid duration "soon"');
  });

  it("decodes as mapstructure does for event payloads: Go names, floats truncated into ints", () => {
    const payload = decodeStruct({ Node: { id: "n1", StatusUpdatedAt: 12.7 }, Deployment: { TaskGroups: { web: { DesiredTotal: 2.9 } } } }, "EventPayload", "mapstructure");
    expect(payload.Node?.ID).toBe("n1");
    expect(payload.Node?.StatusUpdatedAt).toBe(12);
    expect(payload.Deployment?.TaskGroups?.web?.DesiredTotal).toBe(2);
    expect(() => decodeStruct({ Node: { ID: 1 } }, "EventPayload", "mapstructure")).toThrow("'Node.ID' expected type 'string', got unconvertible type 'float64'");
  });

  it.each([
    [3_600_000_000_000, "1h0m0s"],
    [600_000_000_000, "10m0s"],
    [1_500_000_000, "1.5s"],
    [300_000_000, "300ms"],
    [0, "0s"],
  ])("writes the duration %d ns as Go does (%s), and reads it back", (nanoseconds, text) => {
    expect(formatDuration(nanoseconds)).toBe(text);
    expect(parseDuration(text)).toBe(nanoseconds);
  });
});

describe("the Go client's requests", () => {
  it("escapes a path segment and a query value as net/url does", () => {
    expect(pathEscape("job-id/with\\troublesome:characters\n?&字")).toBe("job-id%2Fwith%5Ctroublesome:characters%0A%3F&%E5%AD%97");
    expect(queryEscape('TriggeredBy == "job-register"')).toBe("TriggeredBy+%3D%3D+%22job-register%22");
  });

  let server: ReturnType<typeof createServer> | undefined;
  afterEach(() => server?.close());

  /** An HTTP/1.1 answer with its Content-Length. */
  const answer = (status: string, body: string, headers = "") => `HTTP/1.1 ${status}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`;

  /** A server that records the first request's bytes and answers `response`. */
  async function recorder(response: string): Promise<{ url: string; request: Promise<string> }> {
    let resolve!: (text: string) => void;
    const request = new Promise<string>((done) => (resolve = done));
    server = createServer((socket: Socket) => {
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString("utf8");
        const head = text.indexOf("\r\n\r\n");
        const length = /content-length: (\d+)/i.exec(text)?.[1];
        if (head !== -1 && text.length >= head + 4 + Number(length ?? 0)) {
          resolve(text);
          socket.end(response);
        }
      });
    });
    await new Promise<void>((listening) => server?.listen(0, "127.0.0.1", listening));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no address");
    return { url: `http://127.0.0.1:${address.port}`, request };
  }

  it.each(Object.keys(HEADER_NAMES) as (keyof typeof HEADER_NAMES)[])("sends a registration as the Go client does, with the %s token header", async (style) => {
    const { url, request } = await recorder(answer("200 OK", '{"EvalID":"e","EvalCreateIndex":7,"JobModifyIndex":7,"Warnings":""}', `${HEADER_NAMES[style].index}: 7\r\n`));
    const client = new GoClient({ address: url, headers: style, secretID: "s3cr3t" });
    const [response, meta] = await client.jobs.register(testJob(), { Namespace: "prod" });
    const body = readFileSync(new URL("golden/register-test-job.json", import.meta.url), "utf8");
    expect(await request).toBe(
      `PUT /v1/jobs?namespace=prod HTTP/1.1\r\nhost: ${url.slice("http://".length)}\r\nconnection: keep-alive\r\nUser-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n${HEADER_NAMES[style].token}: s3cr3t\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(response.EvalID).toBe("e");
    expect(meta.LastIndex).toBe(7);
  });

  it("sorts the query's keys and escapes the path, as url.Values and EscapedPath do", async () => {
    const { url, request } = await recorder(answer("200 OK", "[]"));
    const client = new GoClient({ address: url, headers: "nomad" });
    await client.jobs.allocations("job-id/with\\troublesome:characters\n?&字", true, { Namespace: "a b", Params: { z: "1" }, Filter: 'ID == "x"', WaitIndex: 5 });
    expect((await request).split("\r\n")[0]).toBe(
      "GET /v1/job/job-id%2Fwith%5Ctroublesome:characters%0A%3F&%E5%AD%97/allocations?all=true&filter=ID+%3D%3D+%22x%22&index=5&namespace=a+b&z=1 HTTP/1.1",
    );
  });

  it("fails a decoding as Go's client does, naming the field", async () => {
    const { url } = await recorder(answer("200 OK", '[{"ID":"web","Priority":"1"}]'));
    const client = new GoClient({ address: url, headers: "svc" });
    await expect(client.jobs.list()).rejects.toThrow("json: cannot unmarshal string into Go struct field JobListStub.Priority of type int");
  });

  it("answers a status other than 200 with UnexpectedResponseError's text", async () => {
    const { url } = await recorder(answer("404 Not Found", "job not found\n"));
    const client = new GoClient({ address: url, headers: "svc" });
    await expect(client.jobs.info("web")).rejects.toThrow(/^Unexpected response code: 404 \(job not found\)$/);
  });
});
