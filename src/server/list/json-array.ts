/**
 * A JSON array's bytes from the JSON texts of its items.
 *
 * Why not `Buffer.from(\`[${items.join(",")}]\`)`: a list answer of hundreds of kilobytes made that
 * way is first one string in V8's heap, which at that size lives in its large-object space (a fresh
 * mapping each time, and pressure towards a full collection), and is then copied again to be encoded.
 * Measured on 700 items of 320 bytes (a job list matching a new filter): 1.2–2.9 ms for the join
 * and 1.3–2.9 ms more for the encoding, against 0.07–0.4 ms writing each item into one buffer
 * outside the heap. The bytes are the same (a property test holds it).
 *
 * @module
 */

/** `[`, the items' texts separated by `,`, and `]`, encoded as UTF-8. */
export function jsonArrayBytes(items: readonly string[]): Buffer {
  let size = items.length === 0 ? 2 : items.length + 1;
  for (const item of items) size += Buffer.byteLength(item, "utf8");
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  bytes[offset++] = 0x5b; // [
  for (let i = 0; i < items.length; i++) {
    if (i > 0) bytes[offset++] = 0x2c; // ,
    offset += bytes.write(items[i]!, offset, "utf8");
  }
  bytes[offset++] = 0x5d; // ]
  return bytes;
}
