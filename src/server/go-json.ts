/**
 * The syntax check of Go's `json.Decoder.Decode`, which the reference runs on request bodies:
 * it reads the first JSON value and reports the first invalid byte with Go's own words
 * (`invalid character 'x' looking for beginning of value`, `unexpected EOF`), ignoring anything
 * after that value. Parsing proper is left to a JSON library; this only finds errors and the end.
 *
 * @module
 */

/** Where the first value ends, or Go's error text for the body. */
export interface ScanResult {
  readonly error: string | undefined;
  /** Offset just past the first value (when there is no error). */
  readonly end: number;
}

class SyntaxFailure extends Error {}

/** Go's `quoteChar`: the offending character in single quotes, escaped as Go would. */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  const quoted = JSON.stringify(ch);
  return `'${quoted.slice(1, -1)}'`;
}

/** Scans the first JSON value of `text` as Go's decoder does. */
export function goJsonSyntaxError(text: string): ScanResult {
  let i = 0;
  const isSpace = (ch: string) => ch === " " || ch === "\t" || ch === "\r" || ch === "\n";
  const fail = (context: string): never => {
    throw new SyntaxFailure(i >= text.length ? "unexpected EOF" : `invalid character ${quoteChar(text.charAt(i))} ${context}`);
  };
  const skipSpace = () => {
    while (i < text.length && isSpace(text.charAt(i))) i++;
  };

  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (text.charAt(i) !== word.charAt(k)) fail(`in literal ${word} (expecting '${word.charAt(k)}')`);
    }
    i++;
  };

  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail("");
      const ch = text.charAt(i);
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === "\\") {
        i++;
        const escape = text.charAt(i);
        if (escape === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/^[0-9a-fA-F]$/.test(text.charAt(i))) fail("in \\u hexadecimal character escape");
          }
        } else if (!'"\\/bfnrt'.includes(escape) || escape === "") {
          fail("in string escape code");
        }
      } else if (ch.charCodeAt(0) < 0x20) {
        fail("in string literal");
      }
      i++;
    }
  };

  const number = () => {
    if (text.charAt(i) === "-") {
      i++;
      if (!/^[0-9]$/.test(text.charAt(i))) fail("in numeric literal");
    }
    if (text.charAt(i) === "0") i++;
    else while (/^[0-9]$/.test(text.charAt(i))) i++;
    if (text.charAt(i) === ".") {
      i++;
      if (!/^[0-9]$/.test(text.charAt(i))) fail("after decimal point in numeric literal");
      while (/^[0-9]$/.test(text.charAt(i))) i++;
    }
    if (text.charAt(i) === "e" || text.charAt(i) === "E") {
      i++;
      if (text.charAt(i) === "+" || text.charAt(i) === "-") i++;
      if (!/^[0-9]$/.test(text.charAt(i))) fail("in exponent of numeric literal");
      while (/^[0-9]$/.test(text.charAt(i))) i++;
    }
  };

  const value = (): void => {
    skipSpace();
    const ch = text.charAt(i);
    switch (ch) {
      case "{": {
        i++;
        skipSpace();
        if (text.charAt(i) === "}") {
          i++;
          return;
        }
        for (;;) {
          skipSpace();
          if (text.charAt(i) !== '"') fail("looking for beginning of object key string");
          string();
          skipSpace();
          if (text.charAt(i) !== ":") fail("after object key");
          i++;
          value();
          skipSpace();
          if (text.charAt(i) === ",") {
            i++;
            continue;
          }
          if (text.charAt(i) === "}") {
            i++;
            return;
          }
          fail("after object key:value pair");
        }
      }
      case "[": {
        i++;
        skipSpace();
        if (text.charAt(i) === "]") {
          i++;
          return;
        }
        for (;;) {
          value();
          skipSpace();
          if (text.charAt(i) === ",") {
            i++;
            continue;
          }
          if (text.charAt(i) === "]") {
            i++;
            return;
          }
          fail("after array element");
        }
      }
      case '"':
        return string();
      case "t":
        return literal("true");
      case "f":
        return literal("false");
      case "n":
        return literal("null");
      default:
        if (ch === "-" || (ch >= "0" && ch <= "9")) return number();
        fail("looking for beginning of value");
    }
  };

  skipSpace();
  // Only whitespace: the decoder reports io.EOF.
  if (i >= text.length) return { error: "EOF", end: 0 };
  try {
    value();
    return { error: undefined, end: i };
  } catch (error) {
    if (error instanceof SyntaxFailure) return { error: error.message, end: 0 };
    throw error;
  }
}
