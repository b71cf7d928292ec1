import type { ParameterObject } from 'openapi3-ts/oas31';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.js';
import { OPERATIONS } from './operations.js';

const document = buildOpenApiDocument(OPERATIONS, { version: '0.0.0' });

/** Every query parameter of the document, with the operation it belongs to. */
function queryParameters(): { operation: string; parameter: ParameterObject }[] {
  const found: { operation: string; parameter: ParameterObject }[] = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { operationId: string }>)) {
      const { parameters = [] } = operation as { parameters?: ParameterObject[] };
      for (const parameter of parameters) {
        if (parameter.in === 'query') found.push({ operation: operation.operationId, parameter });
      }
    }
  }
  return found;
}

describe('the query parameters of the OpenAPI document', () => {
  it('types include_revoked as the boolean it is read as, with its default', () => {
    const found = queryParameters().find(
      ({ operation, parameter }) =>
        operation === 'credentials.list' && parameter.name === 'include_revoked',
    );
    expect(found?.parameter.schema).toEqual({ type: 'boolean', default: false });
  });

  it('says of each parameter a type whose query text the operation takes', () => {
    const samples: Record<string, string[]> = {
      boolean: ['true', 'false'],
      integer: ['1'],
    };
    const checked = new Set<string>();
    for (const { operation, parameter } of queryParameters()) {
      const schema = parameter.schema as { type?: string; enum?: string[] };
      const texts = schema.enum ?? samples[schema.type ?? ''] ?? [];
      const contract = OPERATIONS.find((candidate) => candidate.name === operation)!;
      const field = (contract.input.shape as Record<string, { safeParse(v: unknown): unknown }>)[
        parameter.name
      ]!;
      for (const text of texts) {
        // REST hands a number field its digits as a number, every other field its text.
        const value = schema.type === 'integer' ? Number(text) : text;
        expect({ operation, name: parameter.name, text, parsed: field.safeParse(value) }).toEqual(
          expect.objectContaining({ parsed: expect.objectContaining({ success: true }) }),
        );
      }
      checked.add(schema.type ?? 'none');
    }
    // The document holds parameters of each kind, so the loop above checked something.
    expect([...checked].sort()).toEqual(['boolean', 'integer', 'string']);
  });
});
