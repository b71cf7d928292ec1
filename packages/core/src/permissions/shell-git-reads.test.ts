import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

// A repository tracks secrets/ as often as not: what prints or copies a tracked file's
// content reads it, as `rg x` reads the working tree.
describe('a git command that prints or copies tracked content reads what it reaches', () => {
  it.each([
    'git diff',
    'git diff HEAD~1',
    'git diff main..feature',
    'git log -p',
    'git log -p -3 --stat',
    'git log --patch',
    'git log -S password',
    'git log -m --first-parent',
    'git whatchanged -p',
    'git diff-tree -p HEAD',
    'git show',
    'git show HEAD',
    'git show --oneline HEAD~2',
    'git show HEAD:secrets/key',
    'git show HEAD HEAD:src/a.ts',
    "git show ':/fix login'",
    'git show --stat 1a2b3c4d',
    'git stash show -p',
    'git stash show',
    'git stash list -p',
    'git format-patch -1 --stdout',
    'git format-patch -3',
    'git bundle create /tmp/b --all',
    'git fast-export --all',
    'git worktree add /tmp/w',
    'git cat-file -p 1a2b3c4d',
    'git range-diff main...feature',
    'git status -v',
    'yes | git add -p',
    'git --no-pager diff',
    'git -P -c color.ui=never log -p',
    'git -C src diff',
    'cd docs && git diff',
    'git --work-tree=/tmp/w diff -- src',
    'git diff -- :/',
    "git diff -- ':(top)src'",
    "git diff -- ':!secrets'",
    "git log -p -- ':(exclude)secrets/**'",
    "git diff -- '*.key'",
    "git grep x -- '*.key'",
    "git -c alias.d='diff HEAD' d",
    'git lg',
    'git --work-tree=/tmp/w reset --hard',
    'cd /tmp/w && git --git-dir=/repo/.git checkout -f HEAD',
    'git push /tmp/bare HEAD:main',
    'git push file:///tmp/bare main',
    'git log -p src/a.ts',
    'git log -p main...feature',
    'git diff HEAD .',
  ])('asks for %j under a deny of secrets/**', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it.each([
    'git diff -- src',
    'git diff HEAD~1 -- src docs',
    'git diff src/',
    'git diff ./src',
    'git -C src diff -- a.ts',
    'git log -p -- docs',
    'git log -p .github/workflows',
    "git log -p 'src/*.ts'",
    'git diff HEAD ./src',
    'git show HEAD -- src',
    'git format-patch -1 --stdout -- src',
    "git diff -- 'src/*.ts'",
    'git add -p src',
    'git show HEAD:package.json',
    'git show main:src/a.ts origin/main:docs/b.md',
    'git status',
    'git status -sb',
    'git log',
    'git log --oneline -5',
    'git log --stat',
    'git log --color --graph',
    'git diff --stat',
    'git diff --name-only HEAD~1',
    'git diff --name-status',
    'git diff --quiet',
    'git show --stat',
    'git show -s --format=%H',
    'git stash show --stat',
    'git stash list',
    'git add -A && git commit -m x',
    'git commit -am x',
    'git checkout -b feature',
    'git push origin main',
    'git pull --rebase',
    'git fetch origin',
    'git branch -a',
    'git rev-parse HEAD',
    'git ls-files',
    'git grep x -- src',
    'git lfs pull',
    'git --git-dir=.git log --oneline',
    'git --work-tree=/tmp/w status',
    'git -c alias.s=status s',
  ])('grants %j, which prints names only or content outside secrets/', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it('reads a pathspec under a rule of any tracked name', () => {
    const env: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };
    expect(decide('git diff -- src', [env]).verdict).toBe('ask');
    expect(decide('git log --stat', [env]).verdict).toBe('allow');
  });
});

// `git clean -fdx`, run by bash 5.2 in a repository, deleted an untracked .env and secrets/.
describe('a git command that takes untracked files out of the work tree reaches them', () => {
  it.each([
    'git clean -fdx',
    'git clean -f',
    'git clean -fX',
    'git clean -fd -- secrets',
    'git stash -u',
    'git stash --all',
    'git stash push --include-untracked -m wip',
    'git stash save -u wip',
  ])('asks for %j under a deny of secrets/**', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it('asks for git clean under a deny of **/.env', () => {
    const env: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };
    expect(decide('git clean -fdx', [env]).verdict).toBe('ask');
  });

  it.each([
    'git clean -n',
    'git clean -fdn',
    'git clean -fd src',
    'git clean -fdx -- src',
    'git stash push -u -- src',
    'git stash',
    'git stash push -m wip',
  ])('grants %j, which takes nothing or only what lies outside secrets/', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });
});

describe('a message git records is text, not a path', () => {
  it.each([
    'git commit -m "$(cat <<\'EOF\'\nfix: the thing\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)"',
    'git add -A && git commit -am "$(printf \'%s\' fix)"',
    'git tag -a v1 -m "release $(date +%F)"',
    'git stash push -m "$MSG"',
    "gh pr create --title 'fix: x' --body \"$(cat <<'EOF'\n## Summary\n- the thing\nEOF\n)\"",
    'gh pr comment 3 --body="$B"',
  ])('grants %j under a deny of secrets/**', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });

  it.each([
    'git commit -am "$(cat secrets/key)"',
    'git commit -m x -F secrets/key',
    'git revert -m 1 $C',
    'gh pr create -t x -b "$(cat secrets/key)"',
    'gh pr create --body-file secrets/key',
  ])('asks for %j, which reads a guarded file or a word it cannot place', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });
});

describe('why a read of the whole tree asks', () => {
  it('says that a pathspec outside the guarded paths is not asked', () => {
    for (const command of ['git diff', 'rg x']) {
      const { detail } = decide(command, [denySecrets]);
      expect(detail).toContain('secrets/**');
      expect(detail).toContain('git diff -- src');
    }
  });
});
