import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { reasonTooLong } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));
const encoder = new TextEncoder();

describe('reason-too-long', () => {
  it('reports reasons over 256 bytes and trims them on a character boundary', () => {
    const findings = lintFixture(reasonTooLong, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/0/reason', '/1/reason']);
    const operation = findings[0]?.fix?.operations[0];
    expect(operation?.op).toBe('set');
    const trimmed = operation?.op === 'set' ? String(operation.value) : '';
    expect(trimmed).toBe('ä'.repeat(128));
    expect(encoder.encode(trimmed).length).toBeLessThanOrEqual(256);
    expect(findings[0]?.fix?.kind).toBe('safe');
  });

  it('is silent at exactly 256 bytes', () => {
    expect(lintFixture(reasonTooLong, folder, 'good.json')).toEqual([]);
  });
});
