import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectedPath, goldenCases, runGoldenCase } from './golden-cases.js';

describe('golden files: check --format json', () => {
  const cases = goldenCases();

  it('has at least 30 crafted rule files', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('%s (regenerate with `pnpm --filter @airlock/rules-lint run golden`)', async (name) => {
    const { code, stdout } = await runGoldenCase(name);
    expect(stdout).toBe(readFileSync(expectedPath(name), 'utf8'));
    const summary = JSON.parse(stdout).summary;
    const failed = JSON.parse(stdout).files.some((file: { failure?: string }) => file.failure);
    expect(code).toBe(failed ? 2 : summary.errors > 0 ? 1 : 0);
  });
});
