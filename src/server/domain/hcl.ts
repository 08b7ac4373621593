/**
 * The one door to `@cdktf/hcl2json` (HashiCorp's HCL parser compiled to WebAssembly with a Go
 * runtime), for ACL policies and jobspecs alike: the text's bracket nesting is measured before the
 * parser sees it, because the parser recurses once a level and deep text takes the whole process's
 * HCL down with it (see {@link MAX_HCL_DEPTH}).
 *
 * @module
 */
import { loadOptional } from "../../optional-packages.js";

/**
 * The deepest nesting of brackets (`{`, `[`, `(`, counted in the text, strings and comments
 * included) HCL text may have. Real jobs nest about ten deep (job, group, task, service, check,
 * header, an interpolation) and policies five (namespace, variables, path, capabilities); the
 * parser recurses once a level: 500 nested lists held it 3 s, 2,000 overflowed its stack, and
 * 8,000 nested lists in a 16 KiB policy (or 15,000 nested blocks in a jobspec) crashed its Go
 * runtime for good (`fatal error: malloc deadlock`: every later HCL parse of the process failed).
 */
export const MAX_HCL_DEPTH = 32;

/** Whether the brackets of `text` nest deeper than {@link MAX_HCL_DEPTH} (one pass, no parsing). */
export function hclNestingTooDeep(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // { [ (
    if (code === 0x7b || code === 0x5b || code === 0x28) {
      if (++depth > MAX_HCL_DEPTH) return true;
    } else if ((code === 0x7d || code === 0x5d || code === 0x29) && depth > 0) depth--;
  }
  return false;
}

/** Thrown by {@link parseHclText} for text nested deeper than {@link MAX_HCL_DEPTH}: never handed to the parser. */
export class HclTooDeepError extends Error {
  readonly code = "too_deep";
  constructor() {
    super(`the text nests deeper than ${MAX_HCL_DEPTH} levels of brackets`);
  }
}

/**
 * HCL text as hcl2json's JSON (loaded with the first HCL text: about 300 ms and 60 MB, which an
 * agent that never reads HCL never spends).
 *
 * @throws HclTooDeepError before parsing when the text nests too deep; hcl2json's own error (its
 * diagnostic text) for text it cannot read.
 */
export async function parseHclText(file: string, text: string): Promise<unknown> {
  if (hclNestingTooDeep(text)) throw new HclTooDeepError();
  const { parse } = await loadOptional("HCL policies", () => import("@cdktf/hcl2json"));
  return parse(file, text);
}
