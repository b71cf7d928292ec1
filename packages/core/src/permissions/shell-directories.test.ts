import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

// The cd's own word names no guarded path nor a directory holding all of them: only the
// relative word read in the directory it leads to does.
const denyKeys: PermissionRule = { verdict: 'deny', targets: ['src/**/*.key'] };

describe('a relative word read where the line changed directory to', () => {
  it.each([
    'cd src/lib && cat x.key',
    'cd src/lib; cat x.key',
    '(cd src/lib; cat x.key)',
    'cd src && cd lib && cat x.key',
    'cd lib; cd src; cat lib/x.key',
    'cd /repo/src/lib; cat x.key',
    'cd .. && cd repo/src/lib && cat x.key',
    'pushd src/lib >/dev/null; cat x.key; popd',
    'builtin cd src/lib; cat x.key',
    'cd -P -- src/lib && cat < x.key',
    "bash -c 'cd src/lib; cat x.key'",
    'cd src/lib && echo $(cat x.key)',
  ])('asks for %j', (command) => {
    expect(decide(command, [denyKeys])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it.each(['cd "$D"; cat x.key', 'cd; cat x.key', 'cd - && cat x.key', 'cd ~/w && cat x.key'])(
    'asks for %j, whose cd leads where its words do not say',
    (command) => {
      expect(decide(command, [denyKeys]).verdict).toBe('ask');
    },
  );

  // bash 5.2 -i ran it: the directory named as a command was entered and key printed.
  it.each([
    "bash -ic 'shopt -s autocd\nsecrets\ncat key'",
    'shopt -s autocd; secrets; cat key',
    'shopt -s cdspell autocd\nsecrets\ncat key',
    // bash 5.2 entered secrets: cdable_vars cds into a variable's value, cdspell (-i) corrects a
    // name; BASHOPTS in the environment of a bash (env, or sh's prefix) turns them on.
    'shopt -s cdable_vars; d=$(echo c2VjcmV0cw== | base64 -d); cd d; cat key',
    'shopt -s cdable_vars; d=$(echo c2VjcmV0cw== | base64 -d); cd d && cat key',
    "bash -ic 'shopt -s cdspell; cd secrest; cat key'",
    "env BASHOPTS=cdable_vars bash -c 'd=$(echo c2VjcmV0cw== | base64 -d); cd d; cat key'",
    "env BASHOPTS=extglob:cdspell bash -ic 'cd secrest; cat key'",
    "BASHOPTS=cdspell bash -ic 'cd secrest; cat key'",
  ])('asks for %j, whose later commands may enter a directory they name', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('ask');
  });

  it.each(['shopt -s extglob; cat key', 'shopt -u autocd; cat key'])('grants %j', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it.each(['cd src/lib && cat y.txt', 'cd docs && cat a.key', 'cd docs && ls', 'cat src/a.ts'])(
    'grants %j, which names nothing the rule guards',
    (command) => {
      expect(decide(command, [denyKeys]).verdict).toBe('allow');
    },
  );

  it('reads a line of many cd words as going anywhere', () => {
    const line = Array.from({ length: 20 }, (_, index) => `cd d${index}`).join('; ');
    expect(decide(`${line}; cat x.txt`, [denyKeys]).verdict).toBe('ask');
  });
});

describe('a line that starts cd DIR && runs the rest in DIR or not at all', () => {
  it.each([
    'cd docs && rg x',
    'cd docs/ && grep -r x',
    'cd docs && rg x | head && echo done',
    'cd src && cd lib && rg x',
    'cd /repo/docs && du -sh',
    'cd docs && git grep x',
  ])('grants %j, which reads no directory holding secrets/', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it.each([
    'cd docs; rg x',
    'cd docs && rg x || rg y',
    'cd docs && rg x & rg y',
    '(cd docs) && rg x',
    'cd docs && (cd ..; rg x)',
    'cd docs && cd .. && rg x',
    'cd docs && cat ../secrets/key',
    'cd secrets && rg x',
    'cd /repo && rg x',
    'cd docs && git diff',
  ])('asks for %j, a read that may reach secrets/', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it('reads a chain of more leading cds than it follows as going anywhere', () => {
    expect(decide(`${'cd a && '.repeat(16)}rg x`, [denySecrets]).verdict).toBe('allow');
    expect(decide(`${'cd a && '.repeat(40)}rg x`, [denySecrets]).verdict).toBe('ask');
  });
});

describe('the directory a command works in or lists is not read through', () => {
  it.each([
    'cd /repo && git status',
    'cd /repo && npm test',
    'git -C /repo status',
    'git -C /repo log --oneline -5',
    'git -C . diff -- src',
    'cd /repo && git diff -- src',
    'ls -la /repo',
    'ls /repo/src /repo/docs',
    'ls -R /repo',
  ])('grants %j under a deny of secrets/**', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it.each([
    'cd secrets',
    'cd /repo/secrets && ls',
    'cd SECRETS && ls',
    'cd s* && ls',
    'git -C secrets status',
    'cd /repo && rg x',
    'cd /repo && cat secrets/key',
    'git -C /repo diff',
    'ls secrets',
    'ls -la /repo/secrets/',
    'ls -R /repo/secrets',
    'ls s*',
  ])('asks for %j, which enters or lists a guarded directory or reads one', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });
});
