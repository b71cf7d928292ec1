import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * Gemini CLI's shell tool runs a command in the directory its own input
 * names (`dir_path`, `directory` in older versions), read from the project
 * root: `cat key` with `dir_path: secrets` reads `/repo/secrets/key`. The
 * stage reads the command's words from there, not from the payload's cwd.
 */

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite');
const PROFILE = {
  approval_mode: 'bypass',
  tool_manifest: [
    { name: 'run_shell_command', input_schema: { type: 'object' }, risk_traits: ['execute'] },
  ],
  project_root: '/repo',
  permission_rule_set: 'house',
  custom_rule_sets: [
    { id: 'house', rules: [{ verdict: 'deny', targets: ['secrets/**'] }, { verdict: 'allow' }] },
  ],
};

describe.skipIf(!sqlite || sqlite.skip !== null)("a Gemini CLI shell call's own directory", () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  /** Gemini CLI's decision on one BeforeTool of run_shell_command with `input`. */
  const decision = async (input: Record<string, unknown>, cwd = '/repo') => {
    const answer = await d.agent.post('/agent_api/v1/hooks/gemini/wait-0', {
      session_id: 'g-shell-dir',
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: input,
      cwd,
    });
    return (answer.body as { decision?: string }).decision;
  };

  it('reads the command from the directory its input names', async () => {
    if (!sqlite) throw new Error('no SQLite backend');
    d = await deploy(sqlite);
    expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(200);
    expect(await decision({ command: 'cat key' })).toBe('allow');
    expect(await decision({ command: 'cat key', dir_path: 'secrets' })).toBe('deny');
    expect(await decision({ command: 'cat key', directory: 'secrets' })).toBe('deny');
    expect(await decision({ command: 'cat key', dir_path: '/repo/secrets' })).toBe('deny');
    expect(await decision({ command: 'cat ../key', dir_path: 'secrets' })).toBe('allow');
    expect(await decision({ command: 'cat key', dir_path: 'src' })).toBe('allow');
    const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
    const rows = (await d.member.get(`${d.ws}/runs/${runs[0]?.id}/tasks`)).body.tasks as {
      working_directory?: string;
    }[];
    // A person deciding sees where the command runs.
    expect(rows.map((row) => row.working_directory)).toEqual([
      '/repo',
      '/repo/secrets',
      '/repo/secrets',
      '/repo/secrets',
      '/repo/secrets',
      '/repo/src',
    ]);
  });
});
