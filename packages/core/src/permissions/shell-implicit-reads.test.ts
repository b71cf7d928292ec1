import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

describe('a recursive reader given no path reads the working directory', () => {
  it.each([
    'rg x',
    'rg -g "*.ts" -i x',
    'rg --files',
    'grep -r x',
    'grep -R x',
    'grep -rn --include=*.key x',
    'grep x -r',
    'grep -d recurse x',
    'rgrep x',
    'ag x',
    'ack x',
    'git grep x',
    'git --no-pager grep -n x HEAD',
    'git archive HEAD',
    'find -exec cat {} +',
    'fd -e key -x cat {}',
    'ctags -R',
    'sudo rg x',
    "bash -c 'grep -r x'",
  ])('asks for %j under a deny of secrets/**', (command) => {
    const outcome = decide(command, [denySecrets]);
    expect(outcome).toMatchObject({ verdict: 'ask', scope: 'conversation', index: 0 });
  });

  it.each([
    'rg x src',
    'rg -e x -e y src',
    'rg --files src',
    'grep -r x src',
    'grep -r -e x src lib',
    'grep x src/a.ts',
    'git grep x -- src',
    'du -sh src',
    'ls',
    'ls -la',
    'echo hi',
    'find src -name x',
    'ls -R src',
    'tree src',
    'fd key src',
  ])('grants %j, which reads nothing the rule guards', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });
});

describe('an input redirection reads its file', () => {
  it.each(['cat < secrets/key', 'cat 0<secrets/key', 'while read l; do :; done < secrets/key'])(
    'asks for %j',
    (command) => {
      expect(decide(command, [denySecrets]).verdict).toBe('ask');
    },
  );

  it('grants a redirection from a file beside the guarded ones', () => {
    expect(decide('cat < src/a.ts', [denySecrets]).verdict).toBe('allow');
  });
});

describe('a recursive reader of a directory that may hold some guarded paths', () => {
  const denyKeys: PermissionRule = { verdict: 'deny', targets: ['**/*.key'] };

  it.each([
    'grep -r x src',
    'rg x src',
    'cd src && rg x',
    'find src -name "*.key" -exec cat {} +',
    'git grep x -- src',
    'cp -r src /tmp/x',
    'zip -r out.zip src',
    'diff -r src lib',
  ])('asks for %j under a deny of **/*.key', (command) => {
    expect(decide(command, [denyKeys]).verdict).toBe('ask');
  });

  // A names-only lister prints names, as Glob does (shell-listings.test.ts).
  it.each([
    ...['ls src', 'cat src/a.ts', 'grep x src/a.ts', 'npm test', 'git status', 'cp src/a b/a'],
    ...['du -sh src', 'ls -R src', 'tree src', 'find src -name "*.key"', 'du', 'tree -L 2'],
    'fd key',
  ])('grants %j, which reads no directory through', (command) => {
    expect(decide(command, [denyKeys]).verdict).toBe('allow');
  });

  it.each(['grep -r x src', 'rg x src', 'find src', 'cp -r src /tmp/x'])(
    'grants %j under a deny of config/secrets/**, which src cannot hold',
    (command) => {
      const rule: PermissionRule = { verdict: 'deny', targets: ['config/secrets/**'] };
      expect(decide(command, [rule]).verdict).toBe('allow');
    },
  );
});

describe('a loader of variables given no file reads the .env of its directory', () => {
  const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };

  it.each(['dotenv -- node x', 'env-cmd node x', 'dotenvx run -- node x', 'npx dotenv -- node x'])(
    'asks for %j under a deny of **/.env',
    (command) => {
      expect(decide(command, [denyEnv]).verdict).toBe('ask');
    },
  );

  it.each([
    'dotenv -e config/x.env -- node x',
    'env-cmd -f config/x.env node x',
    'env-cmd --file=config/x.env node x',
    'dotenvx run -f config/x.env -- node x',
    'cross-env A=1 node x',
  ])('grants %j, which names its file', (command) => {
    expect(decide(command, [denyEnv]).verdict).toBe('allow');
  });
});

describe('a web server serves the files of its directory to whoever asks', () => {
  const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };

  // bash 5.2 ran `python3 -m http.server` in a folder: curl of /.env printed the file.
  it.each([
    'python3 -m http.server',
    'python3 -m http.server 8000 --bind 127.0.0.1',
    'python -m SimpleHTTPServer',
    'python3 -m http.server --directory src',
    'php -S localhost:8000',
    'busybox httpd -f -p 8080',
    'npx http-server -p 8080',
    'ruby -run -e httpd',
  ])('asks for %j under a deny of **/.env', (command) => {
    expect(decide(command, [denyEnv]).verdict).toBe('ask');
  });

  it.each([
    'python3 -m http.server -d docs',
    'php -S localhost:8000 -t public',
    'npx http-server dist -p 8080',
  ])('grants %j under a deny of secrets/**: it serves a directory without them', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });
});

describe('a package manager packing the package reads every file of it', () => {
  // npm 11's `npm pack --dry-run` listed .env and secrets/key among the tarball's contents.
  it.each(['npm pack', 'npm publish', 'pnpm pack', 'yarn pack', 'bun pm pack', 'npm pack ./'])(
    'asks for %j under a deny of secrets/**',
    (command) => {
      expect(decide(command, [denySecrets]).verdict).toBe('ask');
    },
  );

  it.each(['npm pack --dry-run', 'npm pack packages/sdk', 'npm test', 'npm run pack'])(
    'grants %j, which packs no folder holding secrets/',
    (command) => {
      expect(decide(command, [denySecrets]).verdict).toBe('allow');
    },
  );
});

describe('a search limited to the files one glob names reads no other file', () => {
  const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };

  it.each([
    "grep --include='*.ts' -r foo .",
    "grep -r --include='*.ts' foo .",
    "rg -g '*.ts' foo",
    "rg --glob '*.ts' foo",
    "rg --glob='*.ts' foo",
  ])('grants %j under a deny of **/.env, which no .ts file is', (command) => {
    expect(decide(command, [denyEnv]).verdict).toBe('allow');
  });

  it.each([
    "rg -g '*.env' foo",
    "rg -g '!*.ts' foo",
    "rg -g '*.ts' -g '*.env' foo",
    "rg --iglob '*.ts' foo",
    "rg -g '*.ts' foo; rg bar",
    'grep -r --include=.env x .',
  ])('asks for %j under a deny of **/.env: its files may be named .env', (command) => {
    expect(decide(command, [denyEnv]).verdict).toBe('ask');
  });

  it('asks under a deny of secrets/**, which may hold a .ts file', () => {
    expect(decide("rg -g '*.ts' foo", [denySecrets]).verdict).toBe('ask');
    expect(decide("grep -r --include='*.ts' foo .", [denySecrets]).verdict).toBe('ask');
  });
});
