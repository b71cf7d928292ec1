/**
 * Hostile variations of an operation's smallest valid request: wrong types,
 * text no store can hold, numbers at the edges, bodies that are not the
 * JSON object asked for, odd content types, odd path segments and query
 * strings. Each is built deterministically from the operation's sample, so a
 * failure names the same request on every run.
 */

/** One request to send: what differs from the operation's sample request. */
export interface HostileRequest {
  /** What was changed, for the report (such as `field /reason = "\u0000"`). */
  label: string;
  /** Raw (already percent-encoded) path segments replacing the default ones. */
  segments?: Record<string, string>;
  /** Raw query string, without `?`. */
  query?: string;
  /** The body's bytes; none when absent. */
  body?: string | Buffer;
  /** The content type; absent sends `application/json` with a body, null sends none. */
  contentType?: string | null;
  /** Headers sent besides (an `authorization` here replaces the plane's token). */
  headers?: Record<string, string>;
  /** Another method than the operation's. */
  method?: string;
  /** Sent in chunks, with no content-length. */
  chunked?: boolean;
}

/** A JSON value as raw text (so `-0` and `2**53+1` reach the server as written), with a label. */
interface RawValue {
  label: string;
  json: string;
}

const ONE_MIB = 1024 * 1024;

const WRONG_TYPES: RawValue[] = [
  { label: 'a string', json: '"x"' },
  { label: 'a number', json: '1' },
  { label: 'a boolean', json: 'true' },
  { label: 'null', json: 'null' },
  { label: 'an array', json: '[]' },
  { label: 'an object', json: '{}' },
];

const HOSTILE_TEXT: RawValue[] = [
  { label: 'U+0000', json: '"a\\u0000b"' },
  { label: 'a lone surrogate', json: '"\\ud800"' },
  { label: 'a reversed lone surrogate pair', json: '"\\udc00\\ud800"' },
  { label: 'RTL and zero-width marks', json: '"\\u202e\\u200b\\u200dabc\\u2066\\ufeff"' },
];

/** Text within the body limit but far past any field's own: tried on an operation's first field. */
const LARGE_TEXT: RawValue = {
  label: 'a 256 KiB string',
  json: JSON.stringify('y'.repeat(256 * 1024)),
};

const EDGE_NUMBERS: RawValue[] = [
  { label: '-1', json: '-1' },
  { label: '0', json: '0' },
  { label: '1.5', json: '1.5' },
  { label: '1e308', json: '1e308' },
  { label: '-0', json: '-0' },
  { label: '2**53+1', json: '9007199254740993' },
];

/** Every replacement value a field is tried with. */
export const FIELD_VALUES: readonly RawValue[] = [...WRONG_TYPES, ...HOSTILE_TEXT, ...EDGE_NUMBERS];

/** A JSON object's text from raw member texts (keys may repeat). */
function objectText(members: readonly (readonly [string, string])[]): string {
  return `{${members.map(([key, json]) => `${JSON.stringify(key)}:${json}`).join(',')}}`;
}

function membersOf(base: Record<string, unknown>): [string, string][] {
  return Object.entries(base).map(([key, value]) => [key, JSON.stringify(value)]);
}

/**
 * Each field of the body (required or not) replaced by each of
 * {@link FIELD_VALUES}, the other fields kept as in the sample; the first
 * field by a 256 KiB string too.
 */
export function fieldMutations(
  base: Record<string, unknown>,
  fields: readonly string[],
): HostileRequest[] {
  const requests: HostileRequest[] = [];
  for (const [index, field] of fields.entries()) {
    for (const value of index === 0 ? [...FIELD_VALUES, LARGE_TEXT] : FIELD_VALUES) {
      const members = membersOf(base).filter(([key]) => key !== field);
      members.push([field, value.json]);
      requests.push({ label: `field /${field} = ${value.label}`, body: objectText(members) });
    }
  }
  return requests;
}

function nested(levels: number, open: string, close: string): string {
  return `${open.repeat(levels)}${close.repeat(levels)}`;
}

/** Bodies that are not the JSON object asked for, or carry it in the wrong way. */
export function bodyMutations(base: Record<string, unknown>): HostileRequest[] {
  const text = JSON.stringify(base);
  const members = membersOf(base);
  const [first] = members;
  const duplicated: [string, string][] = first
    ? [[first[0], '"dup"'], ...members]
    : [
        ['zz', '1'],
        ['zz', '2'],
      ];
  return [
    { label: 'a body that is not JSON', body: '{"a":' },
    { label: 'JSON with trailing text', body: `${text}x` },
    { label: 'a body of whitespace', body: '   ' },
    { label: 'a byte order mark before the JSON', body: `\ufeff${text}` },
    { label: 'bytes that are not UTF-8', body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
    { label: 'a JSON array', body: '[]' },
    { label: 'a JSON string', body: '"x"' },
    { label: 'a JSON number', body: '1' },
    { label: 'JSON null', body: 'null' },
    { label: '10,000 nested arrays', body: nested(10_000, '[', ']') },
    { label: '10,000 nested objects', body: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}` },
    {
      label: '65 nested arrays in a field',
      body: objectText([...members, ['zz', nested(64, '[', ']')]]),
    },
    { label: 'duplicate keys', body: objectText(duplicated) },
    { label: 'an unknown key', body: objectText([...members, ['zz_unknown', '1']]) },
    { label: 'a __proto__ key', body: objectText([...members, ['__proto__', '{"admin":true}']]) },
    { label: 'a constructor key', body: objectText([...members, ['constructor', '{}']]) },
    {
      label: 'a 1 MiB string',
      body: objectText([...members, ['zz', JSON.stringify('z'.repeat(ONE_MIB))]]),
    },
    { label: 'content-type text/plain', body: text, contentType: 'text/plain' },
    { label: 'content-type multipart/form-data', body: text, contentType: 'multipart/form-data' },
    {
      label: 'content-type with another charset',
      body: text,
      contentType: 'application/json; charset=latin1',
    },
    { label: 'no content-type', body: text, contentType: null },
    { label: 'an empty body', body: '' },
    { label: 'an empty body typed as JSON', body: '', contentType: 'application/json' },
  ];
}

const QUERY_VALUES: readonly string[] = [
  '',
  '-1',
  '0',
  '1.5',
  '1e308',
  '-0',
  '9007199254740993',
  'abc',
  'true',
  'null',
  '%00',
  '%ED%A0%80',
  '%FF',
  '%E2%80%AE%E2%80%8B',
  'x'.repeat(8192),
];

/** Query strings of a GET: bad values for each field, a field given twice, unknown fields, a body. */
export function queryMutations(fields: readonly string[]): HostileRequest[] {
  const requests: HostileRequest[] = [];
  for (const field of fields) {
    for (const value of QUERY_VALUES) {
      requests.push({
        label: `query ${field}=${value.length > 20 ? `${value.slice(0, 8)}…` : value}`,
        query: `${field}=${value}`,
      });
    }
    requests.push({ label: `query ${field} given twice`, query: `${field}=1&${field}=2` });
    requests.push({ label: `query ${field}[]`, query: `${field}[]=1` });
  }
  return [
    ...requests,
    { label: 'an unknown query field', query: 'zz_unknown=1' },
    { label: 'a __proto__ query field', query: '__proto__=1' },
    { label: 'a bare query field', query: 'zz&&=' },
    { label: 'a body on a GET', body: '{"zz":1}' },
    { label: 'a body that is not JSON on a GET', body: '{"a":' },
  ];
}

const SEGMENTS: readonly [string, string][] = [
  ['4 KiB long', 'p'.repeat(4096)],
  ['20 KiB long', 'p'.repeat(20 * 1024)],
  ['%00', '%00'],
  ['with %00 inside', 'a%00b'],
  ['..', '..'],
  ['.', '.'],
  ['%2e%2e', '%2e%2e'],
  ['%2F', 'a%2Fb'],
  ['bad percent-encoding', '%zz'],
  ['an encoded lone surrogate', '%ED%A0%80'],
  ['RTL and zero-width marks', '%E2%80%AE%E2%80%8Ba'],
  ['unicode', '%C3%A9%F0%9F%98%80'],
];

/** Each path parameter replaced by odd segments, one at a time. */
export function pathMutations(params: readonly string[]): HostileRequest[] {
  return params.flatMap((param) =>
    SEGMENTS.map(([label, segment]) => ({
      label: `path {${param}} ${label}`,
      segments: { [param]: segment },
    })),
  );
}

/** Keys no schema names, each odd in its own way. */
const HOSTILE_KEYS: readonly RawValue[] = [
  { label: 'a NUL key', json: '"\\u0000"' },
  { label: 'a lone surrogate key', json: '"\\ud800"' },
  { label: 'an empty key', json: '""' },
  { label: 'a __proto__ key', json: '"__proto__"' },
];

const HOLE = '\u0001hole\u0001';
const HOLE_TEXT = JSON.stringify(HOLE);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The pointers of a value's leaves and of its objects (an object, then what is under it). */
function walk(
  value: Json,
  path: string[],
  into: { leaves: string[][]; objects: string[][] },
): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walk(item, [...path, String(index)], into);
  } else if (value !== null && typeof value === 'object') {
    into.objects.push(path);
    for (const [key, item] of Object.entries(value)) walk(item, [...path, key], into);
  } else {
    into.leaves.push(path);
  }
}

/** The value at `path`. */
function at(value: Json, path: readonly string[]): Json {
  return path.reduce<Json>((inner, key) => (inner as Record<string, Json>)[key] as Json, value);
}

/** A copy of `value` with the value at `path` replaced. */
function replaced(value: Json, path: readonly string[], by: Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return by;
  if (Array.isArray(value)) {
    return value.map((item, index) => (String(index) === head ? replaced(item, rest, by) : item));
  }
  const object = value as { [key: string]: Json };
  return { ...object, [head]: replaced(object[head] as Json, rest, by) };
}

/**
 * Inside each field's full sample (see `fullFieldSamples`), each leaf
 * replaced by four of {@link FIELD_VALUES} (a different four from one leaf to
 * the next, so every value is tried somewhere), and each object given one
 * odd key; the field's full sample is sent unchanged too.
 */
export function leafMutations(
  base: Record<string, unknown>,
  full: Readonly<Record<string, unknown>>,
): HostileRequest[] {
  const requests: HostileRequest[] = [];
  let turn = 0;
  for (const [field, value] of Object.entries(full)) {
    if (value === null || typeof value !== 'object') continue;
    const found = { leaves: [] as string[][], objects: [] as string[][] };
    walk(value as Json, [], found);
    const bodyWith = (fieldText: string) =>
      objectText([...membersOf(base).filter(([key]) => key !== field), [field, fieldText]]);
    requests.push({ label: `field /${field} filled`, body: bodyWith(JSON.stringify(value)) });
    for (const leaf of found.leaves) {
      for (let j = 0; j < 4; j++) {
        const mutant = FIELD_VALUES[(turn * 4 + j) % FIELD_VALUES.length]!;
        const text = JSON.stringify(replaced(value as Json, leaf, HOLE)).replace(
          HOLE_TEXT,
          mutant.json,
        );
        requests.push({
          label: `leaf /${[field, ...leaf].join('/')} = ${mutant.label}`,
          body: bodyWith(text),
        });
      }
      turn++;
    }
    for (const object of found.objects) {
      const key = HOSTILE_KEYS[turn++ % HOSTILE_KEYS.length]!;
      const inner = JSON.stringify(at(value as Json, object)).slice(1, -1);
      const text = JSON.stringify(replaced(value as Json, object, HOLE)).replace(
        HOLE_TEXT,
        `{${key.json}:1${inner ? `,${inner}` : ''}}`,
      );
      requests.push({
        label: `object /${[field, ...object].join('/')} with ${key.label}`,
        body: bodyWith(text),
      });
    }
  }
  return requests;
}

/**
 * The request's framing and headers: credentials in odd shapes (sent in
 * place of the plane's token), `If-Match` values where the operation takes a
 * version, a method the route does not serve, and a body sent in chunks.
 */
export function headerMutations(
  base: Record<string, unknown>,
  options: { takesVersion: boolean; hasBody: boolean },
): HostileRequest[] {
  const text = JSON.stringify(base);
  const body = options.hasBody ? { body: text } : {};
  const requests: HostileRequest[] = [
    ['an empty bearer token', 'Bearer '],
    ['a Basic credential', 'Basic dXNlcjpwYXNz'],
    ['two bearer tokens', 'Bearer a b'],
    ['a 12 KiB bearer token', `Bearer ${'t'.repeat(12 * 1024)}`],
    ['a bearer token of latin-1 bytes', 'Bearer \u00ff\u00e9x'],
  ].map(([label, authorization]) => ({
    label: `authorization: ${label}`,
    headers: { authorization: authorization! },
    ...body,
  }));
  if (options.takesVersion) {
    for (const value of ['"nope"', '*', 'W/"1"', '"a", "b"', '"', '']) {
      requests.push({ label: `If-Match: ${value}`, headers: { 'if-match': value }, ...body });
    }
  }
  requests.push({ label: 'method DELETE', method: 'DELETE' });
  requests.push({ label: 'method PATCH with a body', method: 'PATCH', body: text });
  if (options.hasBody) requests.push({ label: 'a chunked body', body: text, chunked: true });
  return requests;
}
