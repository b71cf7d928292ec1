import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

// The rule people write most: a listing of names or a build given the project must not ask.
const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };

/** Commands that print, copy or send file content: they ask under both rules. */
const CONTENT_READS = [
  'grep -rn foo .',
  'tar czf a.tgz .',
  'docker build .',
  'git diff',
  'git add .',
  'rg --hidden x',
  'find . -exec cat {} +',
  'find . -name .env | xargs cat',
  'find . -type f -execdir cat {} ;',
  'find . -ok cat {} ;',
  'find . -name x -delete',
  'find . -fprint /tmp/list',
  'find -files0-from list',
  'tree --fromfile list',
  'tree --info',
  'fd -e env -x cat',
  'fd -HX cat',
  'fd x --exec-batch cat',
  'cmake -E copy_directory . /tmp/x',
  'cmake -E tar cf /tmp/a.tar .',
  'go test -exec cat .',
  'go build -toolexec=cat .',
  "make --eval='all: ; cat .env secrets/key'",
  "tsc -p . --outDir='/tmp/x;.env;secrets/key'",
  'tree --infofile=notes.info .',
  'du --files0-from=list',
  'prettier .',
  'prettier --write .',
  'prettier -l --write .',
  'prettier --check -w .',
  'eslint -f json .',
];

describe('a names-only lister is decided as a listing of names, not a read of content', () => {
  it.each([
    'find . -name "*.ts"',
    'find src -name "*.ts"',
    'find . -name .env',
    'find -name .env -type f',
    'find . -iname "*.env*" -print',
    'find . -path "*/.env" -ls',
    'tree',
    'tree -L 2 -I node_modules .',
    'du -sh .',
    'du -sh',
    'ls -R',
    'ls -R /repo',
    'cd src && find . -name x',
    'fd -e ts',
    'fd .env',
    'fd -H -t f "^x\\.ts" src',
    'fdfind --type f x .',
  ])('grants %j under **/.env and secrets/**', (command) => {
    expect(decide(command, [denyEnv]).verdict).toBe('allow');
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it.each([
    'find secrets',
    'find /repo/secrets -name x',
    'find s* -name x',
    'tree secrets',
    'du -sh secrets',
    'ls -R secrets',
    'cd secrets && find . -name x',
    'find . -newer secrets/key',
    'fd x secrets',
    'fd --search-path secrets x',
  ])('asks for %j, which lists a guarded directory itself', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  // A lister prints names above the project root too, as a listing tool's directory there does.
  it.each(['find ..', 'find / -name .env', 'tree ..', 'du -sh /', 'ls -R ..'])(
    'grants %j, which lists names above the project root',
    (command) => {
      expect(decide(command, [denyEnv]).verdict).toBe('allow');
      expect(decide(command, [denySecrets]).verdict).toBe('allow');
    },
  );

  it.each(['find .. -name x -exec cat {} +', 'tree /repo/secrets', 'du -sh ../repo/secrets'])(
    'asks for %j, which reads above the project root or lists a guarded directory',
    (command) => {
      expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
    },
  );
});

describe('a known builder, linter, test runner or editor given a directory does not print its files', () => {
  it.each([
    'tsc -p .',
    'tsc --project=.',
    'npx tsc -p .',
    'prettier --check .',
    'prettier -l src',
    'npx prettier --list-different .',
    'eslint .',
    'pnpm exec eslint src',
    'pytest .',
    'python -m pytest .',
    'jest .',
    'vitest run .',
    'go vet ./...',
    'go test ./...',
    'cargo build',
    'cargo test --manifest-path ./Cargo.toml',
    'cmake -S . -B build',
    'mkdir -p build && cd build && cmake ..',
    'cmake --build build',
    'code .',
    'make -C .',
    'make -C src test',
  ])('grants %j under **/.env and secrets/**', (command) => {
    expect(decide(command, [denyEnv]).verdict).toBe('allow');
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it.each(['eslint secrets', 'code secrets/key', 'tsc -p secrets', 'make -C secrets'])(
    'asks for %j, which names a guarded path',
    (command) => {
      expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
    },
  );

  it.each(['code .env', 'eslint .env', 'cmake ..', 'make -C ..', 'code /'])(
    'asks for %j under **/.env: a guarded file, or a word leaving the project root',
    (command) => {
      expect(decide(command, [denyEnv])).toMatchObject({ verdict: 'ask', index: 0 });
    },
  );

  it.each(['mytool .', 'node build.js .', 'cat .env', 'less .'])(
    'keeps asking for %j: an unknown program given a directory may read it through',
    (command) => {
      expect(decide(command, [denyEnv]).verdict).toBe('ask');
    },
  );
});

describe('what prints, copies or sends file content keeps asking', () => {
  it.each([
    ...CONTENT_READS,
    'cat .env',
    'grep -rn foo src',
    'cp -r src /tmp/x',
    'zip -r out.zip src',
  ])('asks for %j under **/.env', (command) => {
    expect(decide(command, [denyEnv])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it.each(CONTENT_READS)('asks for %j under secrets/**', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });
});

describe('a word the shell may expand into an option keeps the command read through', () => {
  it.each([
    'X=-exec; find . $X cat {} +',
    'find . -e* cat {} +',
    'find * -name x',
    'find . -name "$P"',
    'F=--write; prettier --check $F .',
    'prettier --check *',
    'tree *',
    'E=-fjson; eslint $E .',
  ])('asks for %j under **/.env and secrets/**', (command) => {
    expect(decide(command, [denyEnv])).toMatchObject({ verdict: 'ask', index: 0 });
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });
});
