import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installHooks } from './install.js';

/** A fresh, empty home for a test: the environment install reads the agents' settings from. */
export function freshHome(label: string): {
  home: string;
  env: { HOME: string; CODEX_HOME: string };
} {
  const home = mkdtempSync(join(tmpdir(), `airlock-hooks-${label}-`));
  return { home, env: { HOME: home, CODEX_HOME: join(home, '.codex') } };
}

/** A fresh home whose Codex config.toml holds `config`, with no program on PATH. */
export function codexHome(config: string, label = 'codex') {
  const home = mkdtempSync(join(tmpdir(), `airlock-hooks-${label}-`));
  mkdirSync(join(home, '.codex'));
  const path = join(home, '.codex', 'config.toml');
  writeFileSync(path, config);
  return { path, env: { HOME: home, CODEX_HOME: join(home, '.codex'), PATH: '/nonexistent' } };
}

/** Installs Codex's hooks into a test home, against a kernel that is never asked. */
export const installCodex = (env: { HOME: string }) =>
  installHooks({ agent: 'codex', ...installBasics(env), url: 'http://127.0.0.1:9' });

/** What every install of these tests passes besides the agent: a user-wide install of a fixed kernel. */
export const installBasics = (env: { HOME: string }) => ({
  scope: { kind: 'user' } as const,
  env,
  url: 'http://127.0.0.1:4100',
  token: 'alk_agent_x',
  node: '/usr/bin/node',
  hookEntry: '/opt/airlock/airlock-hook.js',
});

/**
 * Runs an installed hook command the way an agent does: through a shell, the
 * payload on stdin. Asynchronously: a stand-in kernel may answer from the test's own process.
 */
export function runInstalled(
  command: string,
  payload: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(payload);
  });
}
