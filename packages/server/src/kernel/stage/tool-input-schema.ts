import { inputSchemaStaticProblem, type ToolManifestEntry } from '@airlock/core';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ProblemDetail } from '../../errors.js';
import {
  CHECK_BUDGET,
  inputValuesAllowed,
  inputValuesUpTo,
  REPORT_ALL_BUDGET,
  schemaSizeProblem,
  schemaValues,
} from './schema-cost.js';
import { expandedSchemaCost, nestingDepth } from './schema-expansion.js';
import { linearRegExp, linearRegExpProblem } from './schema-regexp.js';

/**
 * Checks a call's input against its manifest entry's JSON Schema (draft-07,
 * or 2019-09 or 2020-12 where the schema's `$schema` names it, as MCP's tool
 * schemas do; with ajv). A schema that does not compile refuses every call of its tool:
 * the manifest is wrong, and the model reads why. `format` is not checked
 * (ajv knows no formats without a plugin), and ajv logs nothing.
 *
 * Each schema compiles in an ajv instance of its own, so one declaration's
 * `$id` or `$ref` never meets another's; compiled validators are cached by
 * owner (workspace and application) and schema text. `pattern` and
 * `patternProperties` run on a linear-time engine (./schema-regexp.ts).
 */
const compiled = new Map<string, CompiledSchema | string>();
const CACHE_LIMIT = 1000;
const DETAIL_MAX = 2000;

/** Whose declaration a schema belongs to: validators are never shared across owners. */
export interface SchemaOwner {
  readonly workspaceId: string;
  /** The agent application of a profile; null for a standalone run's own manifest. */
  readonly applicationId: string | null;
}

/**
 * ajv's options. Its code optimisation passes are off: they made compiling
 * the costliest shapes at the size bound about five times slower (0.5 s
 * against 0.1 s) and checking no faster, and they recurse (a `oneOf` of
 * 2,000 branches overflowed the stack).
 */
const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  logger: false,
  code: { regExp: linearRegExp, optimize: false },
} as const;

/**
 * A schema compiled to decide (stopping at the first problem, so a failing
 * input costs little), and its size; the validator that lists every problem
 * is compiled only when a refusal small enough to list them needs it.
 */
interface CompiledSchema {
  readonly schema: Record<string, unknown>;
  readonly values: number;
  readonly decide: ValidateFunction;
  listAll?: ValidateFunction;
  /** Its {@link expandedSchemaCost} by the input's nesting depth, as calls needed them. */
  readonly costByDepth: number[];
}

/**
 * The drafts a schema may name in `$schema`, each with the names ajv knows it by and its ajv
 * class. Draft-07 also stands for a schema naming none; a schema naming another meta-schema
 * (perhaps the declaration's own) is resolved and checked by ajv as it comes.
 */
const DRAFTS = [
  {
    ids: [
      undefined,
      'http://json-schema.org/draft-07/schema',
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/schema',
    ],
    Ajv,
  },
  {
    ids: [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2020-12/schema#',
    ],
    Ajv: Ajv2020,
  },
  {
    ids: [
      'https://json-schema.org/draft/2019-09/schema',
      'https://json-schema.org/draft/2019-09/schema#',
    ],
    Ajv: Ajv2019,
  },
] as const;
type Draft = (typeof DRAFTS)[number];

/**
 * One ajv instance per draft that only checks schemas against its
 * meta-schema: no declaration's schema is ever added to it, so it shares
 * nothing between owners. Compiling a meta-schema costs tens of
 * milliseconds (about 50 in a fresh process), which a request would
 * otherwise pay for every new schema in one piece of the event loop.
 */
const metaCheckers = new Map<Draft, Ajv>();

function metaCheckerOf(draft: Draft): Ajv {
  let checker = metaCheckers.get(draft);
  if (!checker) {
    checker = new draft.Ajv({ ...AJV_OPTIONS, validateSchema: true }) as Ajv;
    checker.validateSchema({});
    metaCheckers.set(draft, checker);
  }
  return checker;
}

/**
 * Compiles the draft-07 meta-schema checker now rather than inside the
 * first request that declares a schema. The kernel calls it when it starts;
 * calling it again does nothing.
 */
export function prepareSchemaChecks(): void {
  metaCheckerOf(DRAFTS[0]);
}

function compileSchema(schema: Record<string, unknown>, allErrors: boolean): ValidateFunction {
  const draft = DRAFTS.find((known) => (known.ids as readonly unknown[]).includes(schema.$schema));
  if (!draft) {
    // Another meta-schema (perhaps the declaration's own): ajv resolves and checks it as before.
    return new Ajv({ ...AJV_OPTIONS, allErrors, validateSchema: true }).compile(schema);
  }
  // Checked against the draft's shared meta-schema validator first (what ajv's own check would
  // do, with the same options and message), then compiled alone in an instance of its own.
  metaCheckerOf(draft).validateSchema(schema, true);
  return new draft.Ajv({ ...AJV_OPTIONS, allErrors, validateSchema: false }).compile(schema);
}

function validatorFor(
  owner: SchemaOwner,
  schema: Record<string, unknown>,
): CompiledSchema | string {
  const key = JSON.stringify([owner.workspaceId, owner.applicationId, schema]);
  let found = compiled.get(key);
  if (found === undefined) {
    const values = schemaValues(schema);
    try {
      // A schema past the size bound is never compiled: compiling it is what would take long.
      found = schemaSizeProblem(values) ?? {
        schema,
        values,
        decide: compileSchema(schema, false),
        costByDepth: [],
      };
    } catch (error) {
      found = (error as Error).message;
    }
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(key, found);
  }
  return found;
}

/** The problems of an input the deciding validator refused, every one when that stays cheap. */
function problemsOf(
  compiledSchema: CompiledSchema,
  input: unknown,
  inputValues: number,
): ErrorObject[] {
  const first = compiledSchema.decide.errors ?? [];
  if (inputValues * compiledSchema.values > REPORT_ALL_BUDGET) return first;
  try {
    compiledSchema.listAll ??= compileSchema(compiledSchema.schema, true);
    compiledSchema.listAll(input);
    return compiledSchema.listAll.errors ?? first;
  } catch {
    return first;
  }
}

/**
 * The schema problems of a call's input, as the text the model reads, or
 * null when the input is valid.
 */
export function inputSchemaProblems(
  owner: SchemaOwner,
  entry: ToolManifestEntry,
  input: unknown,
): string | null {
  const validate = validatorFor(owner, entry.input_schema);
  if (typeof validate === 'string') {
    return `the input_schema of ${entry.name} in the tool manifest does not compile: ${validate}`;
  }
  const allowed = inputValuesAllowed(validate.values);
  const inputValues = inputValuesUpTo(input, allowed);
  if (inputValues > allowed) {
    return (
      `the input is too large to check against the schema of ${entry.name}: it has more than ` +
      `${allowed} JSON values, the most a schema of ${validate.values} values is applied to; ` +
      'send a smaller input'
    );
  }
  const depth = nestingDepth(input);
  let applied: number;
  try {
    validate.costByDepth[depth] ??= expandedSchemaCost(validate.schema, depth, CHECK_BUDGET);
    applied = validate.costByDepth[depth];
  } catch (error) {
    // Counting recurses with the input's nesting, as ajv's code does: past the stack, neither can check it.
    return `the input could not be checked against the schema of ${entry.name}: ${(error as Error).message}`;
  }
  if (applied * inputValues > CHECK_BUDGET) {
    return (
      `the input is too costly to check against the schema of ${entry.name}: its $refs apply ` +
      `some subschemas many times over (${applied > CHECK_BUDGET ? `more than ${CHECK_BUDGET}` : applied} ` +
      `schema values for an input nesting ${depth} levels deep), or name a subschema the kernel ` +
      'cannot bound the cost of; send a less nested input, or declare the tool without such references'
    );
  }
  let valid: boolean;
  try {
    valid = validate.decide(input) as boolean;
  } catch (error) {
    // ajv's generated code recursing past the stack on a deeply nested input or schema, or a
    // pattern met by a string too long to try it on (schema-regexp.ts): either way, unchecked.
    return `the input could not be checked against the schema of ${entry.name}: ${(error as Error).message}`;
  }
  if (valid) return null;
  const problems = problemsOf(validate, input, inputValues).map(
    (error) => `${error.instancePath || '(the input)'} ${error.message ?? 'is invalid'}`,
  );
  const text = `the input does not match the schema of ${entry.name}: ${problems.join('; ')}`;
  return text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX)}...` : text;
}

/**
 * Why the linear engine refuses a pattern, as the declaration's problem; core's static check
 * asks it before the pattern's cost checks.
 */
function refusedPattern(pattern: string): string | null {
  const refused = linearRegExpProblem(pattern);
  return refused === null
    ? null
    : `the pattern needs a construct the linear-time engine refuses (backreference, lookaround): ${refused}`;
}

/**
 * The manifest entries whose `input_schema` does not compile, as problems
 * with pointers (`/tool_manifest/N/input_schema`, down to the `pattern` when
 * the linear engine refuses one), so a declaration is refused before any
 * call meets the broken schema.
 */
export function manifestSchemaProblems(owner: SchemaOwner, manifest: unknown): ProblemDetail[] {
  if (!Array.isArray(manifest)) return [];
  const problems: ProblemDetail[] = [];
  manifest.forEach((entry, index) => {
    const schema = (entry as { input_schema?: unknown } | null)?.input_schema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
    const pointer = `/tool_manifest/${index}/input_schema`;
    const found = inputSchemaStaticProblem(schema, pointer, { refusedPattern });
    if (found) {
      problems.push(found);
      return;
    }
    const validate = validatorFor(owner, schema as Record<string, unknown>);
    if (typeof validate === 'string') {
      problems.push({
        code: 'tool_manifest_invalid',
        pointer,
        message: `the input_schema does not compile as a JSON Schema (draft-07, or the 2019-09 or 2020-12 its $schema names): ${validate}`,
      });
    }
  });
  return problems;
}
