/**
 * A fast path for `parse`: a hand-written reader for the filters people write most (comparisons,
 * `in`, `contains`, `matches`, `is empty`/`is nil`, `and`, `or`, `not`, parentheses and
 * `any`/`all` over plain paths), which builds the same AST as the Chevrotain parser in a fraction
 * of its time.
 * Chevrotain's recognition has a fixed cost per token and per rule that made parsing most of
 * the cost of compiling a filter (28 µs of the 37 µs of the README's complex filter).
 *
 * It never reports a problem: at anything outside what it knows (a JSON pointer, an unusual
 * spacing, a keyword used as a name, anything invalid, a limit reached) it gives up, and the Chevrotain parser
 * reads the filter from the start, with its diagnostics. A property test checks that whatever it
 * reads, it reads exactly as the Chevrotain parser does.
 *
 * @module
 */
import { KEYWORDS as KEYWORD_LIST, readSpelling } from "../operators.js";
import type { BinaryMatchOperator, CollectionBinding, CollectionExpression, Expression, MatchExpression, Selector, Span, UnaryMatchOperator, Value } from "../ast.js";
import type { Limits } from "../limits.js";
import { isPointerLiteral, unquoteDouble, unquoteRaw } from "../go/strings.js";

/** Words that are keywords (never names) in the language: the operator table's. */
const KEYWORDS: ReadonlySet<string> = new Set(KEYWORD_LIST);

/** Thrown to give up; caught by {@link fastRead} alone. */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp();

/** An operand before its place decides whether it is a selector or a value. */
type Operand = { readonly path: string[]; readonly span: Span } | { readonly path?: undefined; readonly raw: string; readonly span: Span };

/**
 * Whether `word` is a keyword. The keywords are lower case, and most names are not: those skip the
 * set, whose lookup hashes the freshly sliced word (the reader's costliest line on the bench's filters).
 */
const isKeyword = (word: string) => {
  const c = word.charCodeAt(0);
  return c >= 0x61 && c <= 0x7a && KEYWORDS.has(word);
};
const isWordStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isWordPart = (c: number) => isWordStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2f;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

class Reader {
  #pos = 0;
  #depth = 0;
  #clauses = 0;

  constructor(
    private readonly source: string,
    private readonly limits: Limits,
  ) {}

  read(): Expression {
    const expression = this.or();
    this.skipSpace();
    if (this.#pos !== this.source.length) throw GIVE_UP;
    return expression;
  }

  private skipSpace(): void {
    while (isSpace(this.source.charCodeAt(this.#pos))) this.#pos++;
  }

  /** The word at the current position (after whitespace), without consuming it; "" if none. */
  private peekWord(): string {
    this.skipSpace();
    const s = this.source;
    let end = this.#pos;
    if (!isWordStart(s.charCodeAt(end))) return "";
    while (isWordPart(s.charCodeAt(end))) end++;
    return s.slice(this.#pos, end);
  }

  /** Whether the word at the current position (after whitespace) is `word`; nothing is consumed, nor sliced out. */
  private atWord(word: string): boolean {
    this.skipSpace();
    return this.source.startsWith(word, this.#pos) && !isWordPart(this.source.charCodeAt(this.#pos + word.length));
  }

  /** Consumes keyword `word` (already peeked); with `spaced`, whitespace must come before and after it. */
  private keyword(word: string, spaced: boolean): number {
    const start = this.#pos;
    this.#pos += word.length;
    if (spaced && (!isSpace(this.source.charCodeAt(start - 1)) || !isSpace(this.source.charCodeAt(this.#pos)))) throw GIVE_UP;
    return start;
  }

  // orExpression := collection | andExpression ("or" andExpression)* ("or" collection)?
  // A collection stands alone or ends the chain, as in the parser.
  private or(): Expression {
    if (this.collectionAhead()) return this.collection();
    const first = this.and();
    if (!this.atWord("or")) return first;
    const operands = [first];
    while (this.atWord("or")) {
      this.keyword("or", true);
      if (this.collectionAhead()) {
        operands.push(this.collection());
        break;
      }
      operands.push(this.and());
    }
    return chain("Or", operands);
  }

  // andExpression := notExpression ("and" notExpression)*
  private and(): Expression {
    const first = this.not();
    if (!this.atWord("and")) return first;
    const operands = [first];
    while (this.atWord("and")) {
      this.keyword("and", true);
      operands.push(this.not());
    }
    return chain("And", operands);
  }

  private not(): Expression {
    this.skipSpace();
    const s = this.source;
    // (Most operands have no `not`: the array of their positions waits for one.)
    if (s.charCodeAt(this.#pos) !== 0x6e) return s.charCodeAt(this.#pos) === 0x28 ? this.group() : this.match();
    const nots: number[] = [];
    while (this.atWord("not")) {
      nots.push(this.keyword("not", false));
      // As an operator, `not` is followed by whitespace (`not(` is an error, `not"x"` a name).
      if (!isSpace(this.source.charCodeAt(this.#pos))) throw GIVE_UP;
    }
    this.skipSpace();
    let expression = this.source.charCodeAt(this.#pos) === 0x28 ? this.group() : this.match();
    for (let i = nots.length - 1; i >= 0; i--) {
      expression = expression.kind === "Not" ? expression.operand : { kind: "Not", operand: expression, span: { start: nots[i]!, end: expression.span.end } };
    }
    return expression;
  }

  /**
   * `any`/`all` where an or-chain's operand starts. Where the full parser would read a match on a
   * field called `any` (`any == 1`), reading it as a collection fails, and the reader gives up.
   */
  private collectionAhead(): boolean {
    this.skipSpace();
    return this.source.charCodeAt(this.#pos) === 0x61 && (this.atWord("any") || this.atWord("all"));
  }

  // collection := ("any" | "all") path "as" binding "{" orExpression "}"
  private collection(): CollectionExpression {
    if (++this.#clauses > this.limits.maxClauses) throw GIVE_UP;
    const s = this.source;
    const quantifier = this.peekWord();
    const start = this.keyword(quantifier, false);
    if (!isSpace(s.charCodeAt(this.#pos))) throw GIVE_UP;
    const selector = selectorOf(this.operand());
    if (!this.atWord("as")) throw GIVE_UP;
    this.keyword("as", true);
    const binding = this.binding();
    this.skipSpace();
    if (s.charCodeAt(this.#pos) !== 0x7b) throw GIVE_UP;
    this.#pos++;
    if (++this.#depth > this.limits.maxNestingDepth) throw GIVE_UP;
    const body = this.or();
    this.skipSpace();
    if (s.charCodeAt(this.#pos) !== 0x7d) throw GIVE_UP;
    this.#pos++;
    this.#depth--;
    return { kind: "Collection", quantifier: quantifier === "any" ? "Any" : "All", selector, binding, body, span: { start, end: this.#pos } };
  }

  // binding := name ("," (name | "_"))? | "_" "," name
  private binding(): CollectionBinding {
    const first = this.bindingName();
    this.skipSpace();
    if (this.source.charCodeAt(this.#pos) !== 0x2c) {
      if (first === "_") throw GIVE_UP;
      return { mode: "Default", name: first };
    }
    this.#pos++;
    const second = this.bindingName();
    if (first === "_") {
      if (second === "_") throw GIVE_UP;
      return { mode: "Value", value: second };
    }
    return second === "_" ? { mode: "Index", index: first } : { mode: "IndexAndValue", index: first, value: second };
  }

  /** A name bound by a collection, or `_` (what may follow either is checked by the caller); keywords are for the full parser. */
  private bindingName(): string {
    const word = this.peekWord();
    if (word === "") {
      if (this.source.charCodeAt(this.#pos) !== 0x5f) throw GIVE_UP;
      this.#pos++;
      return "_";
    }
    if (isKeyword(word)) throw GIVE_UP;
    this.#pos += word.length;
    return word;
  }

  private group(): Expression {
    const start = this.#pos++;
    if (++this.#depth > this.limits.maxNestingDepth) throw GIVE_UP;
    const inner = this.or();
    this.skipSpace();
    if (this.source.charCodeAt(this.#pos) !== 0x29) throw GIVE_UP;
    this.#pos++;
    this.#depth--;
    return { ...inner, span: { start, end: this.#pos } };
  }

  private match(): MatchExpression {
    if (++this.#clauses > this.limits.maxClauses) throw GIVE_UP;
    const left = this.operand();
    this.skipSpace();
    const s = this.source;
    const c = s.charCodeAt(this.#pos);
    if ((c === 0x3d || c === 0x21) && s.charCodeAt(this.#pos + 1) === 0x3d) {
      // `==` or `!=` (a third `=` or any other operator character is for the full parser).
      const next = s.charCodeAt(this.#pos + 2);
      if (next === 0x3d || next === 0x21 || next === 0x3c || next === 0x3e || next === 0x26 || next === 0x7c) throw GIVE_UP;
      this.#pos += 2;
      return this.binary(left, readSpelling(c === 0x3d ? "==" : "!=").operator as BinaryMatchOperator, "in");
    }
    let word = this.peekWord();
    let negated = false;
    if (word === "not") {
      this.keyword("not", false);
      if (!isSpace(s.charCodeAt(this.#pos - 4))) throw GIVE_UP;
      word = this.peekWord();
      negated = true;
    }
    // The operator's words, read here; what they mean comes from the operator table.
    let words: string;
    switch (word) {
      case "contains":
      case "matches":
      case "in":
        this.keyword(word, !negated);
        if (!isSpace(s.charCodeAt(this.#pos))) throw GIVE_UP;
        words = negated ? `not ${word}` : word;
        break;
      case "is": {
        if (negated || left.path === undefined) throw GIVE_UP;
        this.keyword("is", false);
        if (!isSpace(s.charCodeAt(this.#pos - 3))) throw GIVE_UP;
        let what = this.peekWord();
        let not = false;
        if (what === "not") {
          this.keyword("not", false);
          what = this.peekWord();
          not = true;
        }
        if (what !== "empty" && what !== "nil") throw GIVE_UP;
        this.keyword(what, false);
        words = `is ${not ? "not " : ""}${what}`;
        break;
      }
      default:
        throw GIVE_UP;
    }
    const { operator, spelling } = readSpelling(words);
    if (spelling.order === "unary") {
      return { kind: "Match", operator: operator as UnaryMatchOperator, selector: selectorOf(left), span: { start: left.span.start, end: this.#pos } };
    }
    if (spelling.order === "selector-first") return this.binary(left, operator as BinaryMatchOperator, spelling.ast);
    const right = this.operand();
    if (right.path === undefined) throw GIVE_UP;
    return {
      kind: "Match",
      operator: operator as BinaryMatchOperator,
      selector: selectorOf(right),
      value: valueOf(left),
      spelling: spelling.ast,
      span: { start: left.span.start, end: right.span.end },
    };
  }

  /** `Selector op Value` once the operator is read. */
  private binary(left: Operand, operator: BinaryMatchOperator, spelling: "in" | "contains"): MatchExpression {
    if (left.path === undefined) throw GIVE_UP;
    const right = this.operand();
    // A path as a value is a bare word; one with segments (or a null word, which warns) is for the full parser.
    if (right.path !== undefined && right.path.length !== 1) throw GIVE_UP;
    const value = valueOf(right);
    return { kind: "Match", operator, selector: selectorOf(left), value, spelling, span: { start: left.span.start, end: value.span.end } };
  }

  /** A path, a string or a number. */
  private operand(): Operand {
    this.skipSpace();
    const s = this.source;
    const start = this.#pos;
    const c = s.charCodeAt(start);
    if (c === 0x22 || c === 0x60) {
      const end = s.indexOf(c === 0x22 ? '"' : "`", start + 1);
      if (end < 0) throw GIVE_UP;
      this.#pos = end + 1;
      const image = s.slice(start, end + 1);
      return { raw: this.decode(image), span: { start, end: this.#pos } };
    }
    if (isDigit(c) || c === 0x2d) return this.number();
    const head = this.peekWord();
    if (head === "" || isKeyword(head)) throw GIVE_UP;
    this.#pos += head.length;
    const path = [head];
    for (;;) {
      const next = s.charCodeAt(this.#pos);
      if (next === 0x2e) {
        // `.name` or `.0`, touching the dot.
        const segmentStart = this.#pos + 1;
        let end = segmentStart;
        if (isWordStart(s.charCodeAt(end))) while (isWordPart(s.charCodeAt(end))) end++;
        else while (isDigit(s.charCodeAt(end))) end++;
        const segment = s.slice(segmentStart, end);
        if (segment === "" || isKeyword(segment)) throw GIVE_UP;
        path.push(segment);
        this.#pos = end;
      } else if (next === 0x5b) {
        // `["key"]`, with nothing in between.
        const quote = s.charCodeAt(this.#pos + 1);
        if (quote !== 0x22 && quote !== 0x60) throw GIVE_UP;
        const close = s.indexOf(quote === 0x22 ? '"' : "`", this.#pos + 2);
        if (close < 0 || s.charCodeAt(close + 1) !== 0x5d) throw GIVE_UP;
        path.push(this.decode(s.slice(this.#pos + 1, close + 1), true));
        this.#pos = close + 2;
      } else {
        break;
      }
    }
    return { path, span: { start, end: this.#pos } };
  }

  /** `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, followed by whitespace, `)` or the end. */
  private number(): Operand {
    const s = this.source;
    const start = this.#pos;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) i++;
    if (s.charCodeAt(i) === 0x30) i++;
    else if (isDigit(s.charCodeAt(i))) while (isDigit(s.charCodeAt(i))) i++;
    else throw GIVE_UP;
    if (s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      i++;
      while (isDigit(s.charCodeAt(i))) i++;
    }
    const after = s.charCodeAt(i);
    if (i < s.length && !isSpace(after) && after !== 0x29) throw GIVE_UP;
    this.#pos = i;
    return { raw: s.slice(start, i), span: { start, end: i } };
  }

  /**
   * The text of a quoted string; a JSON pointer (outside an index) or an escape that does not
   * decode is for the full parser. `""` is pointer-shaped too, but as a value it reads back as the
   * empty text, without a warning (as a selector the reader gives up on any string).
   */
  private decode(image: string, index = false): string {
    const content = image.slice(1, -1);
    if (image.charCodeAt(0) === 0x60) return unquoteRaw(content);
    if (content === "") return "";
    // A pointer starts with "/" (the test is a Unicode regex, not run for other strings).
    if (!index && content.charCodeAt(0) === 0x2f && isPointerLiteral(image)) throw GIVE_UP;
    const decoded = unquoteDouble(content);
    if (!decoded.ok) throw GIVE_UP;
    return decoded.value;
  }
}

function selectorOf(operand: Operand): Selector {
  if (operand.path === undefined) throw GIVE_UP;
  return { kind: "Selector", form: "Bexpr", path: operand.path, span: operand.span };
}

function valueOf(operand: Operand): Value {
  return { kind: "Value", raw: operand.path === undefined ? operand.raw : operand.path.join("."), span: operand.span };
}

/** One operand, or an `And`/`Or` over them with nested ones of the same kind flattened, as the parser builds it. */
function chain(kind: "And" | "Or", operands: Expression[]): Expression {
  if (operands.length === 1) return operands[0]!;
  const flat: Expression[] = [];
  for (const operand of operands) {
    if (operand.kind === kind) flat.push(...operand.operands);
    else flat.push(operand);
  }
  return { kind, operands: flat, span: { start: operands[0]!.span.start, end: operands[operands.length - 1]!.span.end } };
}

/** The AST of `source` when the fast reader can read it (exactly as the full parser would), else undefined. */
export function fastRead(source: string, limits: Limits): Expression | undefined {
  if (source.length > limits.maxSourceLength) return undefined;
  try {
    return new Reader(source, limits).read();
  } catch (error) {
    if (error === GIVE_UP || error instanceof RangeError) return undefined;
    throw error;
  }
}
