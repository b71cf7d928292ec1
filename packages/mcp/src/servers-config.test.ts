import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  commandLineServer,
  parseServersFile,
  readServersFile,
  ServersConfigError,
} from './servers-config.js';

describe('a servers file that is not JSON', () => {
  it('is refused naming where it broke, never quoting the text around it (an inline secret)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-servers-'));
    try {
      const path = join(dir, 'servers.json');
      writeFileSync(
        path,
        '{"mcpServers": {"gh": {"command": "gh-mcp",\n "env": {"API_KEY": sk-live-SECRET}}}}',
      );
      const error = await readServersFile(path).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ServersConfigError);
      expect((error as Error).message).toMatch(
        /is not JSON \((line 2, column \d+|an unexpected "s")\)$/,
      );
      expect((error as Error).message).not.toContain('sk-live');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('servers file', () => {
  it('reads the mcpServers shape desktop clients use, resolving cwd from the file', () => {
    expect(
      parseServersFile(
        {
          mcpServers: {
            fs: { command: 'npx', args: ['server-filesystem', '.'], cwd: 'work' },
            'my-memory': { command: 'mcp-server-memory', env: { MEMORY_FILE_PATH: 'm.jsonl' } },
          },
        },
        '/etc/airlock',
      ),
    ).toEqual([
      {
        name: 'fs',
        spec: { command: 'npx', args: ['server-filesystem', '.'], cwd: '/etc/airlock/work' },
      },
      {
        name: 'my-memory',
        spec: { command: 'mcp-server-memory', args: [], env: { MEMORY_FILE_PATH: 'm.jsonl' } },
      },
    ]);
  });

  it('refuses a bad file with every problem and a JSON pointer', () => {
    const refusal = () =>
      parseServersFile({ mcpServers: { fs: { command: '', extra: 1 }, ok: {} } }, '/');
    expect(refusal).toThrow(ServersConfigError);
    expect(refusal).toThrow(
      /\/mcpServers\/fs\/command.*\/mcpServers\/fs.*extra.*\/mcpServers\/ok\/command/,
    );
    expect(() => parseServersFile({ mcpServers: {} }, '/')).toThrow('names no server');
    expect(() => parseServersFile([], '/')).toThrow('invalid servers file');
  });

  it("takes the stdio entries of Claude Code's .mcp.json, which name their type", () => {
    expect(
      parseServersFile({ mcpServers: { fs: { type: 'stdio', command: 'npx', args: ['x'] } } }, '/'),
    ).toEqual([{ name: 'fs', spec: { command: 'npx', args: ['x'] } }]);
  });

  it('refuses a remote server as one that cannot be bridged, quoting none of its headers', () => {
    const refusal = () =>
      parseServersFile(
        {
          mcpServers: {
            remote: {
              type: 'http',
              url: 'https://mcp.example',
              headers: { authorization: 'Bearer s3cret' },
            },
            fs: { command: '' },
          },
        },
        '/',
      );
    expect(refusal).toThrow(
      'invalid servers file: /mcpServers/remote: a remote server (url) cannot be bridged: the bridge starts stdio servers (command, args, env, cwd); /mcpServers/fs/command: ',
    );
    expect(refusal).not.toThrow(/s3cret/);
  });

  it('refuses a name that would make tool names ambiguous, or too long for a claim', () => {
    for (const name of ['a__b', '_a', '1fs', 'f s', '', `a${'b'.repeat(64)}`]) {
      expect(() => commandLineServer(name, ['node', 'x.js'])).toThrow(/invalid server name/);
    }
    expect(commandLineServer(`a${'b'.repeat(63)}`, ['node', 'x.js']).name).toHaveLength(64);
    expect(commandLineServer('fs_2', ['node', 'x.js'])).toEqual({
      name: 'fs_2',
      spec: { command: 'node', args: ['x.js'] },
    });
    expect(() => commandLineServer('fs', [])).toThrow(/command/);
  });
});
