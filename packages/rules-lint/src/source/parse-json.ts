import {
  createScanner,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
  stripComments,
} from 'jsonc-parser';

// jsonc-parser's SyntaxKind is an ambient const enum, which isolated modules cannot read.
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const COMMA = 5;
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const LINE_BREAK = 14;
const WHITESPACE = 15;
const END_OF_FILE = 17;

/**
 * Deepest nesting accepted. Rules sit at depth 3 and example inputs a few
 * levels below; the bound keeps the recursive tree walk far from the stack
 * limit on hostile input.
 */
export const MAX_NESTING_DEPTH = 256;

/** A parsed JSON text: the tree with offsets, and its plain value. */
export type ParsedJson =
  | { ok: true; root: Node; value: unknown }
  | { ok: false; message: string; offset: number; length: number };

/**
 * Parses JSON (comments and trailing commas allowed when `allowComments`, as in `.jsonc`)
 * keeping every node's offset. Checks the nesting depth with the scanner
 * before building the tree. Never throws.
 */
export function parseJson(text: string, options: { allowComments: boolean }): ParsedJson {
  const deep = findTooDeep(text);
  if (deep !== undefined) {
    return {
      ok: false,
      message: `nesting deeper than ${MAX_NESTING_DEPTH} levels`,
      offset: deep,
      length: 1,
    };
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    disallowComments: !options.allowComments,
    allowTrailingComma: options.allowComments,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first) {
    return {
      ok: false,
      message: describeParseError(first, options),
      offset: first.offset,
      length: first.length,
    };
  }
  if (!root)
    return { ok: false, message: 'the file is empty; expected a JSON value', offset: 0, length: 0 };
  // JSON.parse, as the kernel's HTTP layer does: a "__proto__" key stays an own key (the tree's
  // own value builder would assign it as the prototype and hide it from the validator).
  try {
    const plain = options.allowComments ? stripComments(blankTrailingCommas(text)) : text;
    const value: unknown = JSON.parse(plain);
    return { ok: true, root, value };
  } catch (error) {
    return {
      ok: false,
      message: `not valid JSON: ${(error as Error).message}`,
      offset: 0,
      length: 0,
    };
  }
}

/** Replaces each comma that only comments and white space separate from a closing bracket with a space. */
function blankTrailingCommas(text: string): string {
  const scanner = createScanner(text, false);
  const commas: number[] = [];
  let pendingComma = -1;
  for (let kind = scanner.scan(); kind !== END_OF_FILE; kind = scanner.scan()) {
    if (
      kind === LINE_COMMENT ||
      kind === BLOCK_COMMENT ||
      kind === LINE_BREAK ||
      kind === WHITESPACE
    ) {
      continue;
    }
    if ((kind === CLOSE_BRACE || kind === CLOSE_BRACKET) && pendingComma >= 0)
      commas.push(pendingComma);
    pendingComma = kind === COMMA ? scanner.getTokenOffset() : -1;
  }
  if (commas.length === 0) return text;
  const chars = text.split('');
  for (const offset of commas) chars[offset] = ' ';
  return chars.join('');
}

function describeParseError(error: ParseError, options: { allowComments: boolean }): string {
  const name = printParseErrorCode(error.error);
  if (name === 'InvalidCommentToken' && !options.allowComments) {
    return 'comments are not JSON; name the file *.jsonc to allow them';
  }
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `not valid JSON: ${words}`;
}

/**
 * Offset of the first bracket past the depth limit, or undefined. A text
 * nested deeper is never walked by anything recursive (jsonc-parser's
 * `parse`, `parseTree` and `getLocation` recurse once per level).
 */
export function findTooDeep(text: string): number | undefined {
  const scanner = createScanner(text, false);
  let depth = 0;
  for (let kind: number = scanner.scan(); kind !== END_OF_FILE; kind = scanner.scan()) {
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_NESTING_DEPTH) return scanner.getTokenOffset();
    } else if (kind === CLOSE_BRACE || kind === CLOSE_BRACKET) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}
