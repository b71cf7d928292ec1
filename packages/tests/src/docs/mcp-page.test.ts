import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { registerServerTools, type ToolManifestEntry } from '@airlock/mcp';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './samples.js';

const page = readFileSync(join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8');

/** The JSON blocks of the page, parsed. */
const jsonBlocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map(
  (match) => JSON.parse(match[1]!) as Record<string, unknown>,
);

describe('docs/mcp.md says what the bridge and the gateway do', () => {
  it('a profile without tool_names still gets the manifest the bridge writes, and the page says so', () => {
    const entry: ToolManifestEntry = {
      name: 'fs__read_file',
      input_schema: { type: 'object' },
      risk_traits: ['read'],
      availability: 'available',
      execution: 'parallel',
    };
    const next = registerServerTools({ approval_mode: 'ask' }, 'fs', [entry]);
    expect(next).toEqual({ approval_mode: 'ask', tool_manifest: [entry] });
    expect(page).not.toMatch(/is\s+left alone/);
    expect(page).toMatch(/whether or not the\s+profile declares `tool_names`/);
  });

  it('the desktop config runs the bin by absolute path and gives the agent token to the bridge', () => {
    const desktop = jsonBlocks.find(
      (block) => (block.mcpServers as Record<string, unknown> | undefined)?.airlock !== undefined,
    );
    if (!desktop) throw new Error('docs/mcp.md has no desktop mcpServers block');
    const airlock = (desktop.mcpServers as Record<string, { command: string; env: object }>)
      .airlock!;
    expect(isAbsolute(airlock.command)).toBe(true);
    expect(airlock.command).toMatch(/\/node_modules\/\.bin\/airlock$/);
    expect(Object.keys(airlock.env)).toEqual(
      expect.arrayContaining(['AIRLOCK_TOKEN', 'AIRLOCK_AGENT_TOKEN', 'AIRLOCK_EXECUTOR_TOKEN']),
    );
  });

  it('states the server-name rules, one server per name, and the no-profile error', () => {
    expect(page).toMatch(/A server name starts with a letter/);
    expect(page).toMatch(/two bridges that register the same name must front the same\s+server/);
    expect(page).toContain('`-32603` with `no_profile_configuration`');
  });

  it('"Try it" removes the folder it made', () => {
    const tryIt = page.slice(page.indexOf('## Try it'), page.indexOf('## From the command line'));
    expect(tryIt).toContain("const work = mkdtempSync(join(tmpdir(), 'mcp-demo-'));");
    expect(tryIt).toContain('rmSync(work, { recursive: true, force: true });');
  });
});
