import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { airlockCommandOf } from './command-shape.js';
import { isAirlockEntry } from './entries.js';
import { installHooks, uninstallHooks } from './install.js';
import { withoutJsonComments } from './json-comments.js';
import { freshHome, installBasics } from './test-home.js';

const sandbox = () => freshHome('settings');

const common = installBasics;

function settingsFile(home: string, agent: 'claude-code' | 'gemini', content: string): string {
  const dir = join(home, agent === 'gemini' ? '.gemini' : '.claude');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), content);
  return join(dir, 'settings.json');
}

describe("install never corrupts the user's own settings", () => {
  it.each([
    ['claude-code', '{"model":"opus","hooks":"managed-by-dotfiles"}', '"hooks" is a string'],
    ['gemini', '{"hooks":[{"event":"BeforeTool","command":"audit.sh"}]}', '"hooks" is an array'],
    ['claude-code', '{"hooks":null}', '"hooks" is null'],
    ['gemini', '{"hooks":3}', '"hooks" is a number'],
    [
      'claude-code',
      '{"hooks":{"PreToolUse":{"matcher":"Bash","hooks":[{"type":"command","command":"audit.sh"}]}}}',
      '"hooks.PreToolUse" is an object',
    ],
    ['gemini', '{"hooks":{"Notification":"x"}}', '"hooks.Notification" is a string'],
  ] as const)(
    '%s %s: refused naming the file and the key, nothing changed',
    (agent, content, why) => {
      const { home, env } = sandbox();
      const path = settingsFile(home, agent, content);
      expect(() => installHooks({ agent, ...common(env) })).toThrow(`${path}: ${why}`);
      expect(readFileSync(path, 'utf8')).toBe(content);
      expect(existsSync(`${path}.airlock-backup`)).toBe(false);
    },
  );

  it("keeps a user's hook that merely mentions airlock-hook, and the user's empty groups and events", () => {
    const { home, env } = sandbox();
    const theirs = {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Write',
            hooks: [
              { type: 'command', command: '~/bin/my-airlock-hook-logger.sh' },
              { type: 'command', command: 'node airlock-hook.js --help | tee log' },
              { type: 'command', command: 'echo hi' },
            ],
          },
          { matcher: 'Read', hooks: [] },
        ],
        Notification: [],
      },
    };
    const path = settingsFile(home, 'claude-code', JSON.stringify(theirs));
    installHooks({ agent: 'claude-code', ...common(env) });
    const installed = JSON.parse(readFileSync(path, 'utf8'));
    expect(installed.hooks.PreToolUse.slice(0, 2)).toEqual(theirs.hooks.PreToolUse);
    expect(installed.hooks.Notification).toEqual([]);
    expect(uninstallHooks({ agent: 'claude-code', scope: { kind: 'user' }, env }).removed).toBe(7);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(theirs);
  });
});

describe("Airlock's own entries, recognised by the exact shape install writes", () => {
  it.each([
    '/usr/bin/node /opt/airlock/airlock-hook.js claude-code --config /h/.airlock/hooks.json',
    "'/opt/my node/node' '/Program Files/airlock/airlock-hook.js' codex --config /h/hooks.json --wait-ms 5000 --defer",
    'sh /opt/airlock/shell/airlock-hook.sh /h/.airlock/hooks-gemini.curl',
    "bash '/a b/airlock-hook.bash' '/a b/hooks-claude-code.curl'",
  ])("%s is Airlock's", (command) => {
    expect(airlockCommandOf(command)).not.toBeNull();
    expect(isAirlockEntry({ type: 'command', command })).toBe(true);
  });

  it.each([
    '~/bin/my-airlock-hook-logger.sh',
    'airlock-hook.sh',
    '/usr/bin/node /opt/airlock/airlock-hook.js claude-code --config x; rm -rf /',
    '/usr/bin/node /opt/airlock/airlock-hook.js vim --config x',
    '/usr/bin/node /opt/airlock/airlock-hook.js codex --verbose',
    'sh /opt/airlock/airlock-hook.sh /h/my.curl',
  ])('%s is not', (command) => {
    expect(isAirlockEntry({ type: 'command', command })).toBe(false);
  });

  it("an HTTP hook is Airlock's only on the endpoint install writes", () => {
    const url = (path: string) => ({ type: 'http', url: `http://127.0.0.1:4100${path}` });
    expect(isAirlockEntry(url('/agent_api/v1/hooks/claude-code/default'))).toBe(true);
    expect(isAirlockEntry(url('/agent_api/v1/hooks/claude-code/wait-5000-defer'))).toBe(true);
    expect(isAirlockEntry(url('/proxy/agent_api/v1/hooks/claude-code/audit'))).toBe(false);
    expect(isAirlockEntry(null)).toBe(false);
  });
});

describe('Gemini CLI settings with comments (Gemini CLI reads them)', () => {
  it('install refuses saying why, not that the JSON is invalid, and changes nothing', () => {
    const { home, env } = sandbox();
    const content = '{\n  // my theme\n  "theme": "GitHub" /* dark later */\n}\n';
    const path = settingsFile(home, 'gemini', content);
    expect(() => installHooks({ agent: 'gemini', ...common(env) })).toThrow(
      `${path} holds comments: Gemini CLI reads them`,
    );
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('withoutJsonComments keeps strings that look like comments', () => {
    const text = '{"url": "http://x//y", /* a */ "b": "/*c*/" // d\n}';
    expect(JSON.parse(withoutJsonComments(text))).toEqual({ url: 'http://x//y', b: '/*c*/' });
  });
});
