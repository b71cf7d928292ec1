import { describe, expect, it } from 'vitest';
import { classifyShellCommand } from './action-tags.js';
import {
  argvLine,
  buildEffectProfile,
  canonicalTarget,
  shellCommandsOf,
} from './effect-profile.js';
import { splitShellSegments } from './shell-segments.js';

describe('splitShellSegments', () => {
  it('splits at unquoted operators and removes quotes', () => {
    expect(splitShellSegments(`cd x && rm -rf "my dir" ; echo 'a && b' | wc -l`)).toEqual([
      ['cd', 'x'],
      ['rm', '-rf', 'my dir'],
      ['echo', 'a && b'],
      ['wc', '-l'],
    ]);
  });
  it('honours backslash escapes and comments, drops redirections', () => {
    expect(splitShellSegments('echo a\\;b # comment\nls > out.txt 2>&1')).toEqual([
      ['echo', 'a;b'],
      ['ls'],
    ]);
  });
});

describe('classifyShellCommand', () => {
  it.each([
    ['ls -la', ['read']],
    ['cat README.md | grep foo', ['read']],
    ['rm build/x.o', ['delete']],
    ['cd x && rm -rf y', ['read', 'delete', 'destructive']],
    ['sudo rm -fr /', ['delete', 'destructive']],
    ['git status', ['read']],
    ['git push origin main --force', ['destructive', 'network', 'publish']],
    ['git reset --hard HEAD~3', ['destructive']],
    ['git commit -m "x"', ['write']],
    ['pip install requests', ['install_local', 'network']],
    ['python -m pip install -r requirements.txt', ['install_local', 'network']],
    ['npm i left-pad', ['install_local', 'network']],
    ['npx create-vite app', ['install_local', 'network']],
    ['yarn', ['install_local', 'network']],
    ['apt-get install -y chromium', ['install_local', 'network']],
    ['dotnet tool install -g dotnet-ef', ['install_local', 'network']],
    ['Install-Module PSReadLine', ['install_local', 'network']],
    ['npm publish', ['network', 'publish']],
    ['curl https://example.com -o page.html', ['write', 'network']],
    ['kubectl apply -f deploy.yaml', ['external']],
    ['echo hi > notes.txt', ['read', 'write']],
    ['./scripts/deploy.sh', ['unknown']],
    ['eval "$PAYLOAD"', ['unknown']],
    ['FOO=1 make build', ['unknown']],
    ['dd if=/dev/zero of=/dev/sda', ['write', 'destructive']],
  ])('%s -> %j', (command, tags) => {
    expect(classifyShellCommand(command)).toEqual(tags);
  });

  it.each([
    'rg "pip install"',
    'node --test',
    'grep -r "npm install" docs',
    'echo "apt-get install x"',
  ])('%s is not install_local', (command) => {
    expect(classifyShellCommand(command)).not.toContain('install_local');
  });
});

describe('effect profile', () => {
  it('tags a shell call and lists canonical targets', () => {
    const profile = buildEffectProfile({
      toolName: 'bash',
      toolInput: { command: 'cp ./src/../a.txt /tmp/./b.txt && curl https://x.dev/i' },
      mode: 'ask',
      matchedRules: [{ index: 2, verdict: 'ask', text: 'cp' }],
    });
    expect(profile.action_tags).toEqual(['write', 'network']);
    expect(profile.targets).toEqual(['a.txt', '/tmp/b.txt', 'https://x.dev/i']);
    expect(profile.matched_rules).toEqual([{ index: 2, verdict: 'ask', text: 'cp' }]);
  });
  it('lists the targets of commands nested in the line, and ~, . and .. alone', () => {
    const targets = (command: string) =>
      buildEffectProfile({
        toolName: 'bash',
        toolInput: { command },
        mode: 'ask',
        matchedRules: [],
      }).targets;
    expect(targets("bash -c 'rm -rf /etc'")).toEqual(['/etc']);
    expect(targets('echo $(rm -rf /srv/data) > out.txt')).toEqual(['/srv/data', 'out.txt']);
    expect(targets("sh -c 'echo x > /etc/passwd'")).toEqual(['/etc/passwd']);
    expect(targets('rm -rf ~ . ..')).toEqual(['~', '.', '..']);
  });
  it('lists the paths a command names only: entered, listed, built or opened', () => {
    const targets = (command: string) =>
      buildEffectProfile({
        toolName: 'bash',
        toolInput: { command },
        mode: 'ask',
        matchedRules: [],
      }).targets;
    expect(targets('code secrets/key')).toEqual(['secrets/key']);
    expect(targets('cd /srv/app && eslint src/a.ts')).toEqual(['/srv/app', 'src/a.ts']);
    expect(targets('ls -la /etc/ssl')).toEqual(['/etc/ssl']);
    expect(targets('git -C /srv/repo status')).toEqual(['/srv/repo']);
    expect(targets('find /var/log -name x.log')).toEqual(['/var/log']);
  });
  it('lists path fields of a non-shell call without tags', () => {
    const profile = buildEffectProfile({
      toolName: 'edit',
      toolInput: { path: 'config/.env' },
      mode: 'rules',
      matchedRules: [],
    });
    expect(profile.action_tags).toEqual([]);
    expect(profile.targets).toEqual(['config/.env']);
  });
  it('classifies every command field, not only the first present', () => {
    const profile = buildEffectProfile({
      toolName: 'bash',
      toolInput: { command: 'ls', cmd: 'rm -rf /' },
      mode: 'rules',
      matchedRules: [],
    });
    expect(profile.action_tags).toEqual(['read', 'delete', 'destructive']);
    expect(shellCommandsOf({ command: 'ls', script: 'git push', argv: ['npm', 'i', 'x'] })).toEqual(
      ['ls', 'git push', 'npm i x'],
    );
  });
  it('reads a command field that is not a string or an array of strings as unknown, besides its words', () => {
    const tagsOf = (toolInput: unknown) =>
      buildEffectProfile({ toolName: 'bash', toolInput, mode: 'rules', matchedRules: [] })
        .action_tags;
    // An executor joining the words runs `rm -rf /srv/data null`: the words are read, and unknown added.
    expect(tagsOf({ command: ['rm', '-rf', '/srv/data', null] })).toEqual([
      'delete',
      'destructive',
      'unknown',
    ]);
    expect(shellCommandsOf({ command: ['rm', '-rf', '/srv/data', null] })).toEqual([
      'rm -rf /srv/data null',
    ]);
    expect(tagsOf({ command: ['rm', '-rf', '/srv/data', 0] })).toContain('destructive');
    expect(tagsOf({ argv: ['bash', '-c', 'rm -rf /srv/data', true] })).toContain('destructive');
    expect(tagsOf({ command: [['rm', '-rf', '/srv/data']] })).toEqual([
      'delete',
      'destructive',
      'unknown',
    ]);
    // Nothing readable at all: unknown alone, never no tags.
    expect(tagsOf({ command: 42 })).toEqual(['unknown']);
    expect(tagsOf({ cmd: { run: 'rm -rf /' } })).toEqual(['unknown']);
    expect(tagsOf({ argv: ['ls', { x: 1 }] })).toEqual(['unknown']);
    // No command given: no tags, as before.
    expect(tagsOf({ command: null })).toEqual([]);
    expect(tagsOf({ argv: [] })).toEqual([]);
    expect(tagsOf({ command: ['ls', '-la'] })).toEqual(['read']);
  });
  it('lists each command once, in the order first met, however many a pointer reaches', () => {
    const steps = Array.from({ length: 50_000 }, (_, index) => ({ run: `ls ${index % 25_000}` }));
    const commands = shellCommandsOf({ command: 'ls 7', steps }, ['/steps/*/run']);
    expect(commands).toHaveLength(25_000);
    expect(commands.slice(0, 3)).toEqual(['ls 7', 'ls 0', 'ls 1']);
  });
  it('reads the fields a manifest marks as commands', () => {
    const input = { steps: [{ run: 'ls' }, { run: 'rm -rf build' }] };
    expect(shellCommandsOf(input)).toEqual([]);
    expect(shellCommandsOf(input, ['/steps/*/run'])).toEqual(['ls', 'rm -rf build']);
    const profile = buildEffectProfile({
      toolName: 'ci',
      toolInput: input,
      mode: 'rules',
      matchedRules: [],
      commandPointers: ['/steps/*/run'],
    });
    expect(profile.action_tags).toEqual(['read', 'delete', 'destructive']);
  });
  it('quotes argv words back into one line, so an argument stays one word', () => {
    expect(argvLine(['bash', '-c', "rm -rf '/srv/my app'"])).toBe(
      `bash -c 'rm -rf '\\''/srv/my app'\\'''`,
    );
    expect(classifyShellCommand(argvLine(['bash', '-c', 'rm -rf /']))).toEqual([
      'delete',
      'destructive',
    ]);
    expect(classifyShellCommand(argvLine(['echo', 'a; rm -rf /']))).toEqual(['read']);
  });
  it('canonicalises paths lexically', () => {
    expect(canonicalTarget('a/./b/../c')).toBe('a/c');
    expect(canonicalTarget('/../etc//passwd')).toBe('/etc/passwd');
    expect(canonicalTarget('../x')).toBe('../x');
  });
});
