import { describe, expect, it } from 'vitest';
import { lintText } from '../lint.js';
import { DUPLICATE_KEY } from './duplicate-keys.js';

function duplicates(name: string, text: string, settings = {}) {
  const outcome = lintText(name, text, { settings });
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.findings.filter((finding) => finding.code === DUPLICATE_KEY);
}

describe('duplicate-key', () => {
  it('reports a verdict written twice at the later key: a reviewer reads deny, JSON.parse keeps allow', () => {
    const found = duplicates(
      'p.json',
      '[{"tool":"bash","verdict":"deny","reason":"r","verdict":"allow"}]',
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      severity: 'error',
      pointer: '/0/verdict',
      location: { line: 1, column: 47, length: 9 },
    });
    expect(found[0]!.message).toContain('"allow"');
    // The kernel refuses a body with a key written twice; it keeps neither copy.
    expect(found[0]!.message).toContain('the kernel refuses the file sent as written');
    expect(found[0]!.message).not.toContain('kernel keep');
  });

  it('finds repeats at any depth, once per later key, and none in a clean file', () => {
    const text =
      '{"approval_mode":"rules","approval_mode":"bypass","approval_rules":[{"tool":"a","verdict":"allow","tool":"b","tool":"c"}]}';
    expect(duplicates('p.json', text).map((finding) => finding.pointer)).toEqual([
      '/approval_mode',
      '/approval_rules/0/tool',
      '/approval_rules/0/tool',
    ]);
    expect(duplicates('p.json', '[{"tool":"bash","verdict":"allow"}]')).toEqual([]);
  });

  it('is set by the config, and a comment in the file cannot silence it', () => {
    const text = '[{"tool":"bash","verdict":"deny","reason":"r","verdict":"allow"}]';
    expect(duplicates('p.json', text, { [DUPLICATE_KEY]: 'warning' })[0]?.severity).toBe('warning');
    expect(duplicates('p.json', text, { [DUPLICATE_KEY]: 'off' })).toEqual([]);
    const silenced = duplicates(
      'p.jsonc',
      `// rules-lint-disable-next-line ${DUPLICATE_KEY} -- looks fine\n${text}`,
    );
    expect(silenced).toHaveLength(1);
  });
});
