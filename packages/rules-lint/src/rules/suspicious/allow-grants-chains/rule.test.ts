import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { allowGrantsChains } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('allow-grants-chains', () => {
  it('reports an allow whose star lets a second command ride, naming what is not caught', () => {
    const findings = lintFixture(allowGrantsChains, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/0/match',
      '/1/match',
      '/4/match',
    ]);
    // `;` is asked and `&&` denied for bash: the first chain left is a pipe.
    expect(findings[0]?.message).toContain('"ls x | touch x"');
    expect(findings[0]?.message).not.toContain('`;`');
    expect(findings[0]?.message).not.toContain('`&&`');
    expect(findings[2]?.message).toContain('"npm test x; touch x"');
    expect(findings[0]?.fix).toBeUndefined();
  });

  it('is silent where asks catch every chain, on exact commands, argv, author rows and shadowed tools', () => {
    expect(lintFixture(allowGrantsChains, folder, 'good.json')).toEqual([]);
  });

  it('reads the text after the last star, and a star in the middle of a command', () => {
    const list = (match: string) =>
      `[{"tool": "bash", "path": "command", "match": ${JSON.stringify(match)}, "verdict": "allow"}]`;
    expect(lintWith(allowGrantsChains, list('git * --dry-run'))[0]?.message).toContain(
      '"git x; touch x --dry-run"',
    );
    expect(lintWith(allowGrantsChains, list('cat ?.txt'))).toEqual([]);
  });
});
