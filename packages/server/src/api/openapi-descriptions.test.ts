import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.js';
import { OPERATIONS } from './operations.js';

const document = buildOpenApiDocument(OPERATIONS, { version: '0.0.0' });

describe("the OpenAPI document's field descriptions", () => {
  it("says what the contracts' .describe() says, on inputs and outputs", () => {
    const list = (
      document.paths!['/api/v1/workspaces/{workspace_id}/runs'] as {
        get: {
          parameters: { name: string; description?: string; schema: { description?: string } }[];
          responses: Record<string, { content: Record<string, { schema: unknown }> }>;
        };
      }
    ).get;
    const cursor = list.parameters.find((parameter) => parameter.name === 'cursor');
    expect(cursor?.schema.description ?? cursor?.description).toMatch(/next_cursor/);
    const output = list.responses['200']!.content['application/json']!.schema as {
      properties: Record<string, { description?: string }>;
    };
    expect(output.properties.next_cursor?.description).toMatch(
      /null when this page holds the last/,
    );
  });
});
