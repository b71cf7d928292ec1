/**
 * Whether a tool input JSON Schema says a path can lead to text. The kernel
 * reads text at a path only from a string or an array of scalars; this walks
 * the schema along the path and answers `never` only when the schema rules
 * text out for certain, and `unknown` wherever it cannot tell ($ref it cannot
 * follow, combinators, open additional properties).
 */
import { pointerTokens } from '@airlock/core';
export type TextVerdict = 'maybe' | 'never' | 'unknown';

/** What the schema says is at the end of the path, for messages. */
export interface PathReading {
  readonly verdict: TextVerdict;
  /** When `never`: what is there instead ("an object", "a number", "nothing"). */
  readonly found?: string;
}

type Schema = Record<string, unknown>;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const DECIMAL_INDEX = /^(0|[1-9][0-9]*)$/;

/** Walks `schema` along `segments` and reads whether text can be there. */
export function readSchemaPath(schema: unknown, segments: readonly string[]): PathReading {
  const root = schema;
  let current: unknown = schema;
  for (const segment of segments) {
    const node = resolve(root, current);
    if (node === undefined) return { verdict: 'unknown' };
    const types = typesOf(node);
    if (types === undefined) return { verdict: 'unknown' };
    if (
      types.has('object') &&
      isObject(node.properties) &&
      Object.hasOwn(node.properties, segment)
    ) {
      current = node.properties[segment];
      continue;
    }
    if (types.has('array') && DECIMAL_INDEX.test(segment)) {
      const index = Number(segment);
      if (Array.isArray(node.prefixItems) && index < node.prefixItems.length)
        current = node.prefixItems[index];
      else if (node.items !== undefined) current = node.items;
      else return { verdict: 'unknown' };
      continue;
    }
    if (types.has('object') && node.additionalProperties !== false) return { verdict: 'unknown' };
    if (types.has('object') && node.patternProperties !== undefined) return { verdict: 'unknown' };
    return { verdict: 'never', found: 'nothing' };
  }
  return readEnd(resolve(root, current), root);
}

function readEnd(node: Schema | undefined, root: unknown): PathReading {
  if (node === undefined) return { verdict: 'unknown' };
  const types = typesOf(node);
  if (types === undefined) return { verdict: 'unknown' };
  if (types.has('string')) return { verdict: 'maybe' };
  if (types.has('array')) {
    const items = resolve(root, node.items);
    const itemTypes = items ? typesOf(items) : undefined;
    if (!itemTypes) return { verdict: 'unknown' };
    if ([...itemTypes].some((type) => SCALAR_TYPES.has(type))) return { verdict: 'maybe' };
  }
  if (types.size === 0) return { verdict: 'unknown' };
  const first = [...types][0]!;
  return {
    verdict: 'never',
    found: first === 'array' ? 'an array of objects or arrays' : article(first),
  };
}

function article(type: string): string {
  return type === 'object' || type === 'integer'
    ? `an ${type}`
    : type === 'null'
      ? 'null'
      : `a ${type}`;
}

/** The set of JSON types a schema allows, or undefined when the schema does not say plainly. */
function typesOf(node: Schema): Set<string> | undefined {
  if (node.anyOf !== undefined || node.oneOf !== undefined || node.allOf !== undefined)
    return undefined;
  if (typeof node.type === 'string') return new Set([node.type]);
  if (Array.isArray(node.type))
    return new Set(node.type.filter((type): type is string => typeof type === 'string'));
  if (node.const !== undefined || node.enum !== undefined) {
    const values =
      node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : [];
    return new Set(values.map(jsonType));
  }
  if (isObject(node.properties)) return new Set(['object']);
  return undefined;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Follows local `$ref`s (`#/...`) a few times; anything else is unknown. */
function resolve(root: unknown, node: unknown): Schema | undefined {
  let current = node;
  for (let hops = 0; hops < 8; hops++) {
    if (!isObject(current)) return undefined;
    const ref = current.$ref;
    if (typeof ref !== 'string') return current;
    if (!ref.startsWith('#')) return undefined;
    current = followPointer(root, ref.slice(1));
  }
  return undefined;
}

function followPointer(root: unknown, pointer: string): unknown {
  let current = root;
  for (const token of pointerTokens(pointer)) {
    if (!isObject(current) || !Object.hasOwn(current, token)) return undefined;
    current = current[token];
  }
  return current;
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
