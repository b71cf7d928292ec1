import type { ToolManifestEntry } from '@airlock/core';
import { Ajv, type ValidateFunction } from 'ajv';
import type { ProblemDetail } from '../errors.js';

/**
 * Checks a call's input against its manifest entry's JSON Schema (draft-07,
 * with ajv). A schema that does not compile refuses every call of its tool:
 * the manifest is wrong, and the model reads why. `format` is not checked
 * (ajv knows no formats without a plugin), and ajv logs nothing.
 */
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true, logger: false });
const compiled = new Map<string, ValidateFunction | string>();
const CACHE_LIMIT = 1000;
const DETAIL_MAX = 2000;

function validatorFor(schema: Record<string, unknown>): ValidateFunction | string {
  const key = JSON.stringify(schema);
  let found = compiled.get(key);
  if (found === undefined) {
    try {
      found = ajv.compile(schema);
    } catch (error) {
      found = (error as Error).message;
    }
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(key, found);
  }
  return found;
}

/**
 * The schema problems of a call's input, as the text the model reads, or
 * null when the input is valid.
 */
export function inputSchemaProblems(entry: ToolManifestEntry, input: unknown): string | null {
  const validate = validatorFor(entry.input_schema);
  if (typeof validate === 'string') {
    return `the input_schema of ${entry.name} in the tool manifest does not compile: ${validate}`;
  }
  if (validate(input)) return null;
  const problems = (validate.errors ?? []).map(
    (error) => `${error.instancePath || '(the input)'} ${error.message ?? 'is invalid'}`,
  );
  const text = `the input does not match the schema of ${entry.name}: ${problems.join('; ')}`;
  return text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX)}...` : text;
}

/**
 * The manifest entries whose `input_schema` does not compile, as problems
 * with pointers (`/tool_manifest/N/input_schema`), so a declaration is
 * refused before any call meets the broken schema.
 */
export function manifestSchemaProblems(manifest: unknown): ProblemDetail[] {
  if (!Array.isArray(manifest)) return [];
  const problems: ProblemDetail[] = [];
  manifest.forEach((entry, index) => {
    const schema = (entry as { input_schema?: unknown } | null)?.input_schema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
    const validate = validatorFor(schema as Record<string, unknown>);
    if (typeof validate === 'string') {
      problems.push({
        code: 'tool_manifest_invalid',
        pointer: `/tool_manifest/${index}/input_schema`,
        message: `the input_schema does not compile as a JSON Schema (draft-07): ${validate}`,
      });
    }
  });
  return problems;
}
