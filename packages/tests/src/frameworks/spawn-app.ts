import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FrameworkKernel } from './support.js';

const run = promisify(execFile);
const APP = join(import.meta.dirname, 'app-process.ts');

/** How long a test that starts application processes may take: each is slow to load on a busy machine. */
export const PROCESSES_MS = 240_000;

/** What one application process printed: its pid, the tools that ran in it, its final text. */
export interface AppLife {
  pid: number;
  ran: string[];
  text?: string;
}

/**
 * Runs one phase of a framework's application (app-process.ts) as a Node.js
 * process of its own against the kernel, the session named after the framework.
 * @throws Error when the process fails or prints no JSON line.
 */
export async function appProcess(
  k: FrameworkKernel,
  options: { framework: string; phase: 'park' | 'resume' | 'decide' | 'run'; stateFile: string },
): Promise<AppLife> {
  const { framework, phase, stateFile } = options;
  const { stdout } = await run(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', APP, framework, phase, stateFile],
    {
      env: {
        ...process.env,
        AIRLOCK_URL: k.connection.url,
        AIRLOCK_TOKEN: k.connection.token,
        SESSION_ID: `restart-${framework}`,
      },
      timeout: 90_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}
