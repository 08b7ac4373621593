/**
 * BLAKE2b (RFC 7693) with any digest length from 1 to 64 bytes, unkeyed: what Go's
 * `golang.org/x/crypto/blake2b.New256` computes, and Node's crypto does not (it has BLAKE2b-512
 * only, and a shorter BLAKE2b is not a truncated longer one: the length is in the parameter block).
 * The reference hashes ACL roles with it (`structs.ACLRole.SetHash`).
 *
 * Written for short inputs (a role's fields): 64-bit words as bigints.
 *
 * @module
 */

const MASK = (1n << 64n) - 1n;

/** The initialisation vector (SHA-512's). */
const IV: readonly bigint[] = [
  0x6a09e667f3bcc908n, 0xbb67ae8584caa73bn, 0x3c6ef372fe94f82bn, 0xa54ff53a5f1d36f1n, 0x510e527fade682d1n, 0x9b05688c2b3e6c1fn, 0x1f83d9abfb41bd6bn, 0x5be0cd19137e2179n,
];

/** The message word schedule of each round (rounds 10 and 11 repeat 0 and 1). */
const SIGMA: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

const BLOCK = 128;

function rotr(x: bigint, n: bigint): bigint {
  return ((x >> n) | (x << (64n - n))) & MASK;
}

/** The compression function F over one block, with `counter` bytes hashed so far and `last` for the final block. */
function compress(h: bigint[], block: Uint8Array, counter: bigint, last: boolean): void {
  const m: bigint[] = [];
  const view = new DataView(block.buffer, block.byteOffset, BLOCK);
  for (let i = 0; i < 16; i++) m.push(view.getBigUint64(i * 8, true));
  const v = [...h, ...IV];
  v[12] = v[12]! ^ (counter & MASK);
  v[13] = v[13]! ^ (counter >> 64n);
  if (last) v[14] = v[14]! ^ MASK;
  const g = (a: number, b: number, c: number, d: number, x: bigint, y: bigint): void => {
    v[a] = (v[a]! + v[b]! + x) & MASK;
    v[d] = rotr(v[d]! ^ v[a]!, 32n);
    v[c] = (v[c]! + v[d]!) & MASK;
    v[b] = rotr(v[b]! ^ v[c]!, 24n);
    v[a] = (v[a]! + v[b]! + y) & MASK;
    v[d] = rotr(v[d]! ^ v[a]!, 16n);
    v[c] = (v[c]! + v[d]!) & MASK;
    v[b] = rotr(v[b]! ^ v[c]!, 63n);
  };
  for (let round = 0; round < 12; round++) {
    const s = SIGMA[round % 10]!;
    g(0, 4, 8, 12, m[s[0]!]!, m[s[1]!]!);
    g(1, 5, 9, 13, m[s[2]!]!, m[s[3]!]!);
    g(2, 6, 10, 14, m[s[4]!]!, m[s[5]!]!);
    g(3, 7, 11, 15, m[s[6]!]!, m[s[7]!]!);
    g(0, 5, 10, 15, m[s[8]!]!, m[s[9]!]!);
    g(1, 6, 11, 12, m[s[10]!]!, m[s[11]!]!);
    g(2, 7, 8, 13, m[s[12]!]!, m[s[13]!]!);
    g(3, 4, 9, 14, m[s[14]!]!, m[s[15]!]!);
  }
  for (let i = 0; i < 8; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 8]!;
}

/**
 * The unkeyed BLAKE2b digest of `data`, `outputLength` bytes long (32: Go's `blake2b.Sum256`).
 *
 * @example blake2b(Buffer.from(""), 32).toString("hex") // "0e5751c0…fe3a8"
 */
export function blake2b(data: Uint8Array, outputLength: number): Buffer {
  if (!Number.isInteger(outputLength) || outputLength < 1 || outputLength > 64) throw new RangeError(`BLAKE2b digest length must be 1 to 64 bytes, not ${outputLength}`);
  const h = [...IV];
  // The parameter block's first word: digest length, no key, fanout 1, depth 1.
  h[0] = h[0]! ^ (0x01010000n | BigInt(outputLength));
  const block = new Uint8Array(BLOCK);
  let offset = 0;
  // Every full block but the last is compressed as it comes; the last (full or not) is flagged.
  while (data.length - offset > BLOCK) {
    block.set(data.subarray(offset, offset + BLOCK));
    offset += BLOCK;
    compress(h, block, BigInt(offset), false);
  }
  block.fill(0);
  block.set(data.subarray(offset));
  compress(h, block, BigInt(data.length), true);
  const out = Buffer.alloc(64);
  for (let i = 0; i < 8; i++) out.writeBigUInt64LE(h[i]!, i * 8);
  return out.subarray(0, outputLength);
}
