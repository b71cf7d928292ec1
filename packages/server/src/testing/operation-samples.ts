import { ERROR_STATUS, type ErrorCode, type OperationContract, pathParams } from '@airlock/core';
import { z } from 'zod';
import { declaresCode } from '../api/operation.js';

type Schema = Record<string, unknown>;

/** A smallest instance of a JSON Schema: required keys only, first enum, shortest strings. */
function sample(
  schema: Schema | boolean | undefined,
  defs: Record<string, Schema>,
  depth = 0,
): unknown {
  if (schema === undefined || typeof schema === 'boolean' || depth > 8) return null;
  if (typeof schema.$ref === 'string') {
    return sample(defs[schema.$ref.replace('#/$defs/', '')], defs, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.[0]) return sample(options[0], defs, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      out[key] = sample(properties[key], defs, depth + 1);
    }
    return out;
  }
  if (type === 'array') {
    const min = (schema.minItems as number | undefined) ?? 0;
    return Array.from({ length: min }, () => sample(schema.items as Schema, defs, depth + 1));
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
