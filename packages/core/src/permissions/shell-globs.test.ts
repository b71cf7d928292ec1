import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolManifest } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';

/** A shell tool: its command is text, read for the paths its words reach. */
const MANIFEST: ToolManifest = [
  { name: 'bash', input_schema: { type: 'object' }, risk_traits: ['execute'], commands: ['/run'] },
];

function decide(command: string, rules: PermissionRule[]) {
  return evaluatePermissions({
    toolName: 'bash',
    input: { command },
    manifest: MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules }] },
  });
}

const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };

describe('a shell word the shell expands as a glob names every entry it matches', () => {
  it.each([
    'cat s*/key',
    'cat secret?/key',
    'cat [s]ecrets/key',
    'cat S*/key',
    'cat */key',
    'cat -- */*',
    'wc -l **/*',
    'tar c *',
    'zip -r out.zip *',
    'echo *',
    'cat /repo/s*/key',
    'cat /*/secrets/key',
    'cd src; cat ../s*/key',
    'sort --files0-from=s*/list',
  ])('asks for %j under a deny of secrets/**', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it.each(['ls *.md', 'cat src/*.ts', 'cat x?.json', 'wc -l src/**/*.ts'])(
    'grants %j, whose matches cannot be a guarded path or hold one',
    (command) => {
      expect(decide(command, [denySecrets]).verdict).toBe('allow');
    },
  );

  it('asks for a glob in the directory a pattern matches in', () => {
    const rule: PermissionRule = { verdict: 'deny', targets: ['config/*.pem'] };
    expect(decide('cat config/*', [rule]).verdict).toBe('ask');
    expect(decide('cat src/*', [rule]).verdict).toBe('allow');
  });
});

describe('a shell word whose expansion may lead anywhere', () => {
  it.each([
    'F=secrets/key; cat $F',
    'a=secrets; cat $a/key',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    'cat "${a:-secrets}/key"',
    'cat src/$f',
    'cat $(printf secr; printf ets)/key',
    'cat `printf secrets`/key',
    'cat ~/repo/secrets/key',
    'ls ~',
    'grep --file=$F x src',
  ])('asks for %j under a deny of secrets/**', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it.each([
    'A=sec; B=rets; cat $A$B/key',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    'F=xsecrets; cat ${F#x}/key',
    'F=src; F+=/../secrets; cat $F/key',
    'read F < list; cat $F',
    'for f; do cat $f; done',
    'for f in secrets/*; do cat $f; done',
    'export F=secrets/key; cat "$F"',
    'cat $HOME/repo/secrets/key',
  ])('asks for %j, a variable the line gives a guarded path or no known value', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('ask');
  });

  it.each([
    'echo $((1 + 2))',
    'echo $?',
    "echo '$F'",
    'cat a~b',
    'npm test',
    'echo $PATH',
    'echo "$USER"',
    'F=src/a.ts; cat $F',
    'for f in src/*.ts; do wc -l "$f"; done',
  ])('grants %j, whose expansions give no path', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });
});
