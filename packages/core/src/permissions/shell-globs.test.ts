import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

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
    'cat /repo/s*/key',
    'cat /*/secrets/key',
    'cd src; cat ../s*/key',
    'sort --files0-from=s*/list',
    // extglob patterns (bash 5.2 after `shopt -s extglob` reads secrets/key through each).
    'shopt -s extglob\ncat @(secrets)/key',
    'cat +(x|secret)s/key',
    'cat !(src)/key',
    'cat @(a b|secrets)/key',
  ])('asks for %j under a deny of secrets/**', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it.each(['ls *.md', 'cat src/*.ts', 'cat x?.json', 'wc -l src/**/*.ts'])(
    'grants %j, whose matches cannot be a guarded path or hold one',
    (command) => {
      expect(decide(command, [denySecrets]).verdict).toBe('allow');
    },
  );

  it('asks for a delete of an extglob that may name .env under a deny of **/.env', () => {
    const rule: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };
    expect(decide('shopt -s extglob\nrm @(.env)', [rule]).verdict).toBe('ask');
  });

  it('asks for a glob in the directory a pattern matches in', () => {
    const rule: PermissionRule = { verdict: 'deny', targets: ['config/*.pem'] };
    expect(decide('cat config/*', [rule]).verdict).toBe('ask');
    expect(decide('cat src/*', [rule]).verdict).toBe('allow');
  });
});

describe('a glob a program only prints names entries, it reads none', () => {
  it.each(['echo *', 'echo */', "printf '%s\\n' *", 'for f in *; do echo "$f"; done', 'echo s*'])(
    'grants %j under a deny of secrets/**, as it grants ls',
    (command) => {
      expect(decide(command, [denySecrets]).verdict).toBe('allow');
    },
  );

  it.each([
    'echo secrets/*',
    'echo s*/*',
    'for f in s*/*; do echo "$f"; done',
    'for f in *; do cat "$f"; done',
    'echo * | xargs cat',
  ])('asks for %j, which names what a guarded directory holds or reads the names', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
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
    'export F=$G/key; cat $F',
    'export PATH=$PATH:/x; cat $PATH',
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
    'export PATH=$PATH:/usr/local/go/bin && go build ./...',
    'export PATH="$HOME/.cargo/bin:$PATH" && cargo build',
    'f() { local dir=$1; }',
  ])('grants %j, whose expansions give no path', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it('grants a printer given one quoted value whole, which opens and names nothing', () => {
    for (const command of ['echo "$HOME"', 'printf \'%s\\n\' "$PWD"', 'echo "$(date)"']) {
      expect(decide(command, [denySecrets]).verdict).toBe('allow');
    }
    // Unquoted, the value may be a glob; with text around it, a name; a substitution is read.
    for (const command of ['echo $HOME', 'echo "secrets/$X"', 'echo "$(cat secrets/key)"']) {
      expect(decide(command, [denySecrets]).verdict).toBe('ask');
    }
  });

  it('reads a variable naming no file as some name, not as nothing, before a path', () => {
    // bash 5.2 ran `cat $USER/.env` with USER=u beside u/.env: it printed u/.env.
    const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    for (const command of ['cat $USER/.env', 'cat $HOSTNAME/.env', 'cat ${CI}/.env']) {
      expect(decide(command, [denyEnv]).verdict).toBe('ask');
    }
    for (const command of ['echo $USER', 'cat $USER', 'ls /home/$USER']) {
      expect(decide(command, [denyEnv]).verdict).toBe('allow');
    }
  });
});

describe("a glob's names end in its last segment", () => {
  const guards: PermissionRule[] = [
    { verdict: 'deny', targets: ['**/.env'] },
    { verdict: 'deny', targets: ['**/*.pem'] },
  ];

  it.each([
    'cat src/*.ts',
    'ls src/*.ts',
    'wc -l src/**/*.ts',
    'cat *.json',
    'head -n 1 */README.md',
    'for f in src/*.ts; do wc -l "$f"; done',
  ])('grants %j under **/.env and under **/*.pem', (command) => {
    for (const rule of guards) expect(decide(command, [rule]).verdict).toBe('allow');
  });

  it.each([
    ['cat .e*', 0],
    ['cat src/*.env', 0],
    ['cat */.env', 0],
    ['cat src/*', 0],
    ['cat src/*/', 0],
    ['cat src/**', 0],
    ['cat keys/*.p?m', 1],
    ['cat keys/*.PEM', 1],
    ['grep -r x src/*.ts', 0],
    ['tar c src/*.ts', 1],
    ['zip -r out.zip src/*.ts', 0],
  ] as const)('asks %j, whose names may be or hold a guarded path', (command, rule) => {
    expect(decide(command, [guards[rule]!]).verdict).toBe('ask');
  });

  it("asks a glob that may name the pattern's literal directory, grants one that may not", () => {
    const rule: PermissionRule = { verdict: 'deny', targets: ['config/*.pem'] };
    expect(decide('cat con*', [rule]).verdict).toBe('ask');
    expect(decide('cat ?onfig/x.pem', [rule]).verdict).toBe('ask');
    expect(decide('cat conf*/x.ts', [rule]).verdict).toBe('allow');
  });
});
