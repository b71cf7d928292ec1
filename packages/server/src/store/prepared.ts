import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Dialect } from './migrations.js';
import type { Database } from './schema.js';

/** Stands for a named parameter while a prepared query is built; its value is given per call. */
// biome-ignore lint/suspicious/noExplicitAny: a placeholder is accepted wherever a value is.
export type Param = (name: string) => any;

const MARK = '\u0000airlock-param:';

interface Template {
  compiled: CompiledQuery;
  /** Per SQL parameter: the name of a named parameter, or a constant (`{ value }`). */
  slots: (string | { value: unknown })[];
}

const templates = new Map<string, Template>();
const TEMPLATE_LIMIT = 500;

function compileTemplate(compilable: Compilable): Template {
  const compiled = compilable.compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : { value },
  );
  return { compiled, slots };
}

/**
 * Runs a query through Kysely's builder only the first time per dialect and
 * shape: the compiled SQL is kept under `key` with its parameters named, and
 * later calls only bind `values`. The same query layer and SQL on both stores;
 * what is saved is building and compiling the query tree on every call.
 * `key` must name everything the shape depends on (e.g. the set of columns).
 */
export async function runPrepared<R>(
  db: Kysely<Database>,
  dialect: Dialect,
  key: string,
  build: (param: Param) => Compilable<R>,
  values: Record<string, unknown>,
): Promise<QueryResult<R>> {
  const cacheKey = `${dialect}\u0000${key}`;
  let template = templates.get(cacheKey);
  if (!template) {
    template = compileTemplate(build((name) => `${MARK}${name}`));
    if (templates.size >= TEMPLATE_LIMIT) templates.clear();
    templates.set(cacheKey, template);
  }
  const { compiled, slots } = template;
  const parameters = slots.map((slot) => {
    if (typeof slot !== 'string') return slot.value;
    const value = values[slot];
    if (value === undefined) throw new Error(`prepared query ${key}: no value for ${slot}`);
    return value;
  });
  return db.executeQuery<R>({ ...compiled, parameters });
}

/** Binds every column of a row as a named parameter (for INSERT ... VALUES of whole rows). */
export function rowParams<T extends object>(row: T, param: Param): T {
  const bound: Record<string, unknown> = {};
  for (const column of Object.keys(row)) bound[column] = param(column);
  return bound as T;
}
