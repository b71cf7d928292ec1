import type { OpenAPIObject, OperationObject, ParameterObject } from 'openapi3-ts/oas31';
import { OpenApiBuilder } from 'openapi3-ts/oas31';
import { z } from 'zod';
import { ERROR_STATUS } from '../kernel/errors.js';
import { type Operation, pathParams } from './operation.js';
import { ErrorBodySchema } from './schemas.js';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest as JsonSchema;
}

function errorStatuses(operation: Operation): number[] {
  const statuses = new Set<number>([400, 401, 403, 404, 500]);
  if (operation.method !== 'GET') {
    for (const status of [409, 413, 415]) statuses.add(status);
  }
  if (operation.name.startsWith('profile.') || operation.name.startsWith('runs.create')) {
    statuses.add(422);
  }
  if (operation.name === 'conversations.input') statuses.add(422);
  return [...statuses].sort();
}

function describeOperation(operation: Operation): OperationObject {
  const params = pathParams(operation.path);
  const shape = operation.input.shape as Record<string, z.ZodType>;
  const parameters: ParameterObject[] = params.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: shape[name] ? jsonSchema(shape[name], 'input') : { type: 'string' },
  }));
  const rest = Object.fromEntries(params.map((p) => [p, true as const]));
  const remaining = (operation.input as z.ZodObject).omit(rest as never);
  const result: OperationObject = {
    operationId: operation.name,
    summary: operation.summary,
    tags: [operation.name.split('.')[0]!],
    security: [{ bearer: [] }],
    'x-airlock-planes': [...operation.planes],
    parameters,
    responses: {
      [String(operation.status ?? 200)]: {
        description: 'Success',
        content: operation.jsonLines
          ? {
              'application/x-ndjson': {
                // Each line is one element of the output's array field.
                schema: jsonSchema(
                  ((operation.output as z.ZodObject).shape[operation.jsonLines] as z.ZodArray)
                    .element as z.ZodType,
                  'output',
                ),
              },
            }
          : { 'application/json': { schema: jsonSchema(operation.output, 'output') } },
      },
    },
  };
  if (operation.method === 'GET') {
    for (const [name, schema] of Object.entries(remaining.shape as Record<string, z.ZodType>)) {
      parameters.push({
        name,
        in: 'query',
        required: !schema.safeParse(undefined).success,
        schema: jsonSchema(schema, 'input'),
      });
    }
  } else {
    result.requestBody = {
      required: false,
      content: { 'application/json': { schema: jsonSchema(remaining, 'input') } },
    };
  }
  const responses = result.responses as Record<string, unknown>;
  for (const status of errorStatuses(operation)) {
    responses[String(status)] = {
      description: Object.entries(ERROR_STATUS)
        .filter(([, s]) => s === status)
        .map(([code]) => code)
        .join(', '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return result;
}

/** Builds the OpenAPI 3.1 document from the operations' own zod schemas. */
export function buildOpenApiDocument(
  operations: readonly Operation[],
  info: { version: string },
): OpenAPIObject {
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addInfo({
      title: 'Airlock kernel API',
      version: info.version,
      description:
        'The approval kernel for AI-agent tool calls: agent plane (/agent_api), member plane ' +
        '(/api/v1/workspaces/...), executor plane (/executor_api). Every error is ' +
        '{"error": {"code", "detail"}} with a stable code.',
    })
    .addSecurityScheme('bearer', { type: 'http', scheme: 'bearer' })
    .addSchema('Error', jsonSchema(ErrorBodySchema, 'output'));
  const paths = new Map<string, Record<string, OperationObject>>();
  for (const operation of operations) {
    const item = paths.get(operation.path) ?? {};
    item[operation.method.toLowerCase()] = describeOperation(operation);
    paths.set(operation.path, item);
  }
  for (const [path, item] of paths) builder.addPath(path, item);
  return builder.getSpec();
}
