import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

describe('rules-lint classify', () => {
  it('prints each segment with its tags and the wrappers it was found through', async () => {
    const run = await runCaptured(['classify', "ls; sudo bash -lc 'npm i left-pad'"], tmpdir());
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'read\tls',
        'install_local, network\tnpm i left-pad  (via sudo > bash -c)',
        '=> read, install_local, network',
        '',
      ].join('\n'),
    );
  });

  it('json: the segments, their notes and the command tags', async () => {
    const run = await runCaptured(['classify', '--format', 'json', 'eval "$X"'], tmpdir());
    expect(JSON.parse(run.stdout)).toMatchObject({
      command: 'eval "$X"',
      tags: ['unknown'],
      segments: [
        { command: 'eval $X', tags: ['unknown'], note: 'eval runs text built at run time' },
        { command: '$X', via: ['eval'], tags: ['unknown'] },
      ],
    });
  });

  it('needs exactly one command argument', async () => {
    const run = await runCaptured(['classify'], tmpdir());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('classify: missing COMMAND');
  });
});

describe('rules-lint check on an action contract', () => {
  it('reports contract problems with their line and column', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-contract-'));
    writeFileSync(
      join(dir, 'profile.json'),
      [
        '{',
        '  "approval_mode": "bypass",',
        '  "action_contract": {',
        '    "contract_version": 1,',
        '    "authorization": { "forbidden": ["action:install-local"] },',
        '    "colour": "red"',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const run = await runCaptured(['check', 'profile.json'], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('profile.json:5:38: error[contract_action_tag_unknown]:');
    expect(run.stdout).toContain('use the documented form action:install_local');
    expect(run.stdout).toContain('profile.json:6:5: error[contract_key_unknown]:');
  });
});
