import { ERROR_STATUS, type ErrorCode, type OperationContract, pathParams } from '@airlock/core';
import { z } from 'zod';
import { declaresCode } from '../api/operation.js';

type Schema = Record<string, unknown>;

/**
 * A smallest instance of a JSON Schema: required keys only, first enum,
 * shortest strings; with `full`, every key and at least one item of each array.
 */
function sample(
  schema: Schema | boolean | undefined,
  defs: Record<string, Schema>,
  depth = 0,
  full = false,
): unknown {
  if (schema === undefined || typeof schema === 'boolean' || depth > 8) return null;
  if (typeof schema.$ref === 'string') {
    return sample(defs[schema.$ref.replace('#/$defs/', '')], defs, depth + 1, full);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.[0]) return sample(options[0], defs, depth + 1, full);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const keys = full ? Object.keys(properties) : ((schema.required ?? []) as string[]);
    for (const key of keys) out[key] = sample(properties[key], defs, depth + 1, full);
    return out;
  }
  if (type === 'array') {
    const min = Math.max((schema.minItems as number | undefined) ?? 0, full ? 1 : 0);
    return Array.from({ length: min }, () => sample(schema.items as Schema, defs, depth + 1, full));
  }
  if (type === 'string') return 'x'.repeat((schema.minLength as number | undefined) ?? 1);
  if (type === 'integer' || type === 'number') return (schema.minimum as number | undefined) ?? 1;
  if (type === 'boolean') return false;
  return null;
}

/**
 * The smallest input an operation's schema allows (required keys only), path
 * parameters left out: what the error-path drives send and mutate.
 */
export function sampleBody(
  contract: Pick<OperationContract, 'input' | 'path'>,
): Record<string, unknown> {
  const json = z.toJSONSchema(contract.input, { io: 'input', unrepresentable: 'any' }) as Schema;
  const input = (sample(json, (json.$defs ?? {}) as Record<string, Schema>) ?? {}) as Record<
    string,
    unknown
  >;
  for (const param of pathParams(contract.path)) delete input[param];
  return input;
}

/**
 * For each body field of an operation, a value with every key its schema
 * names and an item in each array (the first option of a union): what a drive
 * mutates leaf by leaf to reach past the top level.
 */
export function fullFieldSamples(
  contract: Pick<OperationContract, 'input' | 'path'>,
): Record<string, unknown> {
  const json = z.toJSONSchema(contract.input, { io: 'input', unrepresentable: 'any' }) as Schema;
  const defs = (json.$defs ?? {}) as Record<string, Schema>;
  const properties = (json.properties ?? {}) as Record<string, Schema>;
  const params = pathParams(contract.path);
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    if (!params.includes(key)) out[key] = sample(schema, defs, 1, true);
  }
  return out;
}

/** An operation's path with each `{param}` replaced by `segment(param)`, used as given (already encoded). */
export function fillPath(path: string, segment: (param: string) => string): string {
  return pathParams(path).reduce((text, param) => text.replace(`{${param}}`, segment(param)), path);
}

/**
 * Why an error answer breaks an operation's contract, or null when it keeps
 * it: a 500, a code the operation does not declare, or a status other than
 * the table's for that code.
 */
export function contractBreach(
  contract: Pick<OperationContract, 'errors'>,
  answer: { status: number; code: string },
): string | null {
  if (answer.status === 500) return 'a 500';
  if (!declaresCode(contract, answer.code as ErrorCode)) return `undeclared code ${answer.code}`;
  const status = ERROR_STATUS[answer.code as ErrorCode];
  if (status !== answer.status) return `${answer.code} answered ${answer.status}, not ${status}`;
  return null;
}
