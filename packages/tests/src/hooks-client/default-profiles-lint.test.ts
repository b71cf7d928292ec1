import { HOOKED_AGENTS } from '@airlock/core';
import { defaultProfile } from '@airlock/hooks';
import { lintText } from '@airlock/rules-lint';
import { describe, expect, it } from 'vitest';

// The profiles a team starts from pass the linter the same team runs in CI: no finding at all.
describe.each(HOOKED_AGENTS)('the default profile of %s, through rules-lint', (agent) => {
  it('has no finding', () => {
    const text = JSON.stringify(defaultProfile(agent), null, 2);
    const outcome = lintText(`${agent}.json`, text);
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.findings.map((finding) => `${finding.code}: ${finding.message}`)).toEqual([]);
  });
});
