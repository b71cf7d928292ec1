/**
 * Run as a process of its own (`node --conditions=source --import tsx
 * src/testing/first-large-request.ts rest|trpc`): starts a fresh kernel on a
 * fresh SQLite store, and its very first request, over REST or tRPC, is a run
 * whose `bash` call carries an 800 KB dense command. Nothing ran in the process before, so
 * the kernel's code is as cold as after a restart. Then, as a control, the
 * same run with a command of two bytes, once the code is warm: what this
 * machine, loaded as it is, makes of any request. Prints
 * `{"first": {...}, "control": {...}}`: the longest event-loop stalls while
 * each call parked (see ./loop-stalls.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAirlock } from '../airlock.js';
import { largeCommand, stallWhileParking } from './large-command.js';
import { workspaceWithTokens } from './workspace-tokens.js';

const surface = process.argv[2] ?? 'rest';
if (surface !== 'rest' && surface !== 'trpc') throw new Error('the surface is rest or trpc');
const dense = largeCommand(800_000, 'dense');
const dataDir = mkdtempSync(join(tmpdir(), 'airlock-first-request-'));
const airlock = await startAirlock({ dataDir, rateLimit: null, validateOutputs: false });
try {
  const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'first-request');
  const ws = `/api/v1/workspaces/${workspaceId}`;
  const target = { airlock, ws, agentToken: tokens.agent, surface } as const;
  const first = await stallWhileParking(target, { command: dense });
  const control = await stallWhileParking(target, { command: 'ls' });
  console.log(JSON.stringify({ first, control }));
} finally {
  await airlock.close();
  rmSync(dataDir, { recursive: true, force: true });
}
