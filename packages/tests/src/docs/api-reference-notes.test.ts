import { describe, expect, it } from 'vitest';
import { type OpenApiDocument, renderApiReference } from './api-reference.js';

/** A document of one paged list whose fields carry descriptions (zod's `.describe()`). */
const document: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'Airlock kernel API', version: '0.0.0' },
  paths: {
    '/things': {
      get: {
        operationId: 'things.list',
        summary: 'List the things',
        tags: ['things'],
        parameters: [
          {
            name: 'cursor',
            in: 'query',
            required: false,
            schema: { type: 'string', maxLength: 600, description: "The previous page's cursor." },
          },
        ],
        responses: {
          '200': {
            description: 'Success',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    things: { type: 'array', items: { type: 'string' } },
                    next_cursor: {
                      type: ['string', 'null'],
                      description: 'Pass as cursor for the next page;\nnull | on the last.',
                    },
                  },
                  required: ['things', 'next_cursor'],
                },
              },
            },
          },
        },
      },
    },
  },
};

describe('the API reference notes a field with its description', () => {
  const page = renderApiReference(document);

  it('of an answer field, on one line of its table, its pipe escaped', () => {
    expect(page).toContain(
      '| `next_cursor` | string \\| null | yes | Pass as cursor for the next page; null \\| on the last. |',
    );
  });

  it('of a parameter, before its bounds', () => {
    expect(page).toContain(
      "| `cursor` | query | string | no | The previous page's cursor. (at most 600 characters) |",
    );
  });

  it('and a field without one keeps only its bounds', () => {
    expect(page).toContain('| `things` | string[] | yes |  |');
  });
});
