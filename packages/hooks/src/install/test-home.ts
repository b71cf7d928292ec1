import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh, empty home for a test: the environment install reads the agents' settings from. */
export function freshHome(label: string): {
  home: string;
  env: { HOME: string; CODEX_HOME: string };
} {
  const home = mkdtempSync(join(tmpdir(), `airlock-hooks-${label}-`));
  return { home, env: { HOME: home, CODEX_HOME: join(home, '.codex') } };
}

/** What every install of these tests passes besides the agent: a user-wide install of a fixed kernel. */
export const installBasics = (env: { HOME: string }) => ({
  scope: { kind: 'user' } as const,
  env,
  url: 'http://127.0.0.1:4100',
  token: 'alk_agent_x',
  node: '/usr/bin/node',
  hookEntry: '/opt/airlock/airlock-hook.js',
});
