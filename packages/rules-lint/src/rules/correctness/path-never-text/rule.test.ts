import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readSchemaPath } from '../../../catalog/schema-text.js';
import { lintFixture } from '../../testing.js';
import { pathNeverText } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('path-never-text', () => {
  it('reports paths that lead to a number, an object, nothing, or into a string', () => {
    const findings = lintFixture(pathNeverText, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/0/path',
      '/1/path',
      '/2/path',
      '/3/path',
      '/4/path',
      '/5/path',
    ]);
    expect(findings[0]?.message).toContain('an integer');
    expect(findings[2]?.message).toContain('nothing');
  });

  it('is silent where text may be, or where the schemas cannot tell', () => {
    expect(lintFixture(pathNeverText, folder, 'good.json')).toEqual([]);
  });

  it('reads arrays of scalars as text, as the kernel joins them', () => {
    const schema = {
      type: 'object',
      properties: { argv: { type: 'array', items: { type: ['string', 'number'] } } },
    };
    expect(readSchemaPath(schema, ['argv']).verdict).toBe('maybe');
    expect(readSchemaPath(schema, ['argv', '0']).verdict).toBe('maybe');
    expect(readSchemaPath(schema, ['argv', 'x']).verdict).toBe('never');
  });
});
