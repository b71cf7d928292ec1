import {
  BODY_ERROR_CODES,
  COMMON_ERROR_CODES,
  ERROR_STATUS,
  ErrorBodySchema,
  type ErrorCode,
  JsonValueSchema,
  PROTOCOL_SCHEMAS,
  pathParams,
  SUBSCRIPTION_CONTRACTS,
} from '@airlock/core';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ResponsesObject,
} from 'openapi3-ts/oas31';
import { OpenApiBuilder } from 'openapi3-ts/oas31';
import { z } from 'zod';
import type { Operation } from './operation.js';

type JsonSchema = Record<string, unknown>;

/** The document's extension holding the live subscriptions (see SUBSCRIPTION_CONTRACTS). */
const SUBSCRIPTIONS_EXTENSION = 'x-airlock-subscriptions';

/**
 * Converts zod schemas to JSON Schema, moving every shared wire schema (those
 * core names in PROTOCOL_SCHEMAS) to `components.schemas` and pointing at it.
 */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  /** @param home where the collected schemas are published (a `$ref` prefix). */
  constructor(private readonly home = '#/components/schemas/') {}

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      metadata: PROTOCOL_SCHEMAS,
      override: ({ zodSchema, jsonSchema }) => {
        // A field's `.describe()` lives in zod's global registry, which `metadata` (the
        // protocol's named schemas) replaces: carried over, so the document says it.
        const described = z.globalRegistry.get(zodSchema as unknown as z.ZodType)?.description;
        if (described !== undefined && jsonSchema.description === undefined) {
          jsonSchema.description = described;
        }
        // Any JSON value, stated without recursion: generated clients (openapi-typescript)
        // cannot type a union that contains an array of itself.
        if ((zodSchema as unknown) !== JsonValueSchema) return;
        for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
        Object.assign(jsonSchema, {
          description: 'Any JSON value; the kernel reads it only through rule paths.',
          anyOf: [
            { type: 'string' },
            { type: 'number' },
            { type: 'boolean' },
            { type: 'null' },
            { type: 'array', items: true },
            { type: 'object', additionalProperties: true },
          ],
        });
      },
    }) as JsonSchema;
    const { $schema: _dialect, $defs, ...rest } = converted;
    const renames = new Map<string, string>();
    for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      renames.set(name, this.place(name, io, definition));
    }
    const rewritten = this.rewrite(rest, renames) as JsonSchema;
    for (const name of renames.values()) {
      this.components[name] = this.rewrite(this.components[name], renames) as JsonSchema;
    }
    return rewritten;
  }

  /** Picks the component name of a definition: its own, or `…Input` when the input side differs. */
  private place(name: string, io: 'input' | 'output', definition: JsonSchema): string {
    const candidates = io === 'input' ? [name, `${name}Input`] : [name];
    for (const candidate of candidates) {
      const existing = this.components[candidate];
      if (!existing) {
        this.components[candidate] = definition;
        return candidate;
      }
      if (JSON.stringify(existing) === JSON.stringify(this.rewrite(definition, new Map()))) {
        return candidate;
      }
    }
    if (io === 'input') {
      this.components[`${name}Input`] = definition;
      return `${name}Input`;
    }
    throw new Error(`two different output schemas are both named ${name}`);
  }

  private rewrite(value: unknown, renames: Map<string, string>): unknown {
    if (Array.isArray(value)) return value.map((item) => this.rewrite(item, renames));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')) {
        const name = item.slice('#/$defs/'.length);
        out[key] = `${this.home}${renames.get(name) ?? name}`;
      } else {
        out[key] = this.rewrite(item, renames);
      }
    }
    return out;
  }
}

function errorCodes(operation: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>([...COMMON_ERROR_CODES, ...operation.errors]);
  // A GET has no body to be malformed or oversized.
  if (operation.method === 'GET') {
    for (const code of BODY_ERROR_CODES) codes.delete(code);
  }
  return [...codes];
}

function errorResponses(operation: Operation): ResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(operation)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: ResponsesObject = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.join(', '),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/Error' }],
            properties: {
              error: { type: 'object', properties: { code: { type: 'string', enum: codes } } },
            },
          },
        },
      },
    };
  }
  return responses;
}

function describeOperation(operation: Operation, schemas: SchemaCollector): OperationObject {
  const params = pathParams(operation.path);
  const documented = operation.documented ?? operation.input;
  const shape = operation.input.shape as Record<string, z.ZodType>;
  const parameters: ParameterObject[] = params.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: shape[name] ? schemas.convert(shape[name], 'input') : { type: 'string' },
  }));
  const omitted = Object.fromEntries(params.map((p) => [p, true as const]));
  const remaining = documented.omit(omitted as never) as z.ZodObject;
  const result: OperationObject = {
    operationId: operation.name,
    summary: operation.summary,
    tags: [operation.name.split('.')[0]!],
    security: [{ bearer: [] }],
    'x-airlock-planes': [...operation.planes],
    ...(operation.role ? { 'x-airlock-role': operation.role } : {}),
    parameters,
    responses: {
      [String(operation.status ?? 200)]: {
        description: 'Success',
        content: operation.jsonLines
          ? {
              'application/x-ndjson': {
                // Each line is one element of the output's array field.
                schema: schemas.convert(
                  ((operation.output as z.ZodObject).shape[operation.jsonLines] as z.ZodArray)
                    .element as z.ZodType,
                  'output',
                ),
              },
            }
          : { 'application/json': { schema: schemas.convert(operation.output, 'output') } },
      },
      ...errorResponses(operation),
    },
  };
  const fields = remaining.shape as Record<string, z.ZodType>;
  if (operation.method === 'GET') {
    for (const [name, schema] of Object.entries(fields)) {
      parameters.push({
        name,
        in: 'query',
        required: !schema.safeParse(undefined).success,
        schema: schemas.convert(schema, 'input'),
      });
    }
  } else {
    // A body is required exactly when one of its fields is.
    const required = Object.values(fields).some((schema) => !schema.safeParse(undefined).success);
    result.requestBody = {
      required,
      content: { 'application/json': { schema: schemas.convert(remaining, 'input') } },
    };
  }
  return result;
}

/** Builds the OpenAPI 3.1 document from the operations' contracts in @airlock/core. */
export function buildOpenApiDocument(
  operations: readonly Operation[],
  info: { version: string },
): OpenAPIObject {
  const schemas = new SchemaCollector();
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addInfo({
      title: 'Airlock kernel API',
      version: info.version,
      description:
        'The approval kernel for AI-agent tool calls: agent plane (/agent_api), member plane ' +
        '(/api/v1/workspaces/...), executor plane (/executor_api). Every error is ' +
        '{"error": {"code", "detail"}} with a stable code.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    })
    .addServer({ url: 'http://127.0.0.1:4820', description: 'A kernel started by airlock serve' })
    .addSecurityScheme('bearer', { type: 'http', scheme: 'bearer' });
  const paths = new Map<string, Record<string, OperationObject>>();
  for (const operation of operations) {
    const item = paths.get(operation.path) ?? {};
    item[operation.method.toLowerCase()] = describeOperation(operation, schemas);
    paths.set(operation.path, item);
  }
  for (const [path, item] of paths) builder.addPath(path, item);
  for (const tag of new Set(operations.map((o) => o.name.split('.')[0]!))) {
    builder.addTag({ name: tag, description: `The ${tag} operations.` });
  }
  // WebSockets and tRPC subscriptions have no OpenAPI form: their contracts ride as an
  // extension that holds its own schemas (OpenAPI tools see no use of a component from it).
  const subscriptionSchemas = new SchemaCollector(`#/${SUBSCRIPTIONS_EXTENSION}/schemas/`);
  const subscriptions = Object.values(SUBSCRIPTION_CONTRACTS).map((contract) => ({
    name: contract.name,
    summary: contract.summary,
    transport: contract.transport,
    path: contract.path,
    planes: [...contract.planes],
    query: subscriptionSchemas.convert(contract.query, 'input'),
    messages: subscriptionSchemas.convert(contract.messages, 'output'),
    errors: [...contract.errors],
  }));
  builder.addSchema('Error', schemas.convert(ErrorBodySchema, 'output'));
  for (const [name, schema] of Object.entries(schemas.components).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    builder.addSchema(name, schema);
  }
  return {
    ...builder.getSpec(),
    [SUBSCRIPTIONS_EXTENSION]: { subscriptions, schemas: subscriptionSchemas.components },
  };
}
