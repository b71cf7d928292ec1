import { request } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const sqlite = all.find((backend) => backend.name === 'sqlite' && backend.skip === null);

/** How long the kernel's held poll had to take an approval, were it still polling (its delay is at most 2 s). */
const OLD_POLL_WINDOW_MS = 6_000;

const CALL = { tool_name: 'Bash', tool_input: { command: 'git push origin main' } };

function preToolUse(d: Deployment, toolUseId: string) {
  return fetch(`${d.url}/agent_api/v1/hooks/claude-code/wait-60000`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.tokens.agent}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 'gave-up-1',
      ...CALL,
      tool_use_id: toolUseId,
    }),
  });
}

/**
 * Sends a PreToolUse on a connection of its own and returns a function that
 * destroys it and resolves once the kernel's side of it has closed.
 */
function heldPreToolUse(d: Deployment, toolUseId: string): { giveUp(): Promise<void> } {
  const accepted: Socket[] = [];
  const server = d.airlock.http.server;
  const onConnection = (socket: Socket) => accepted.push(socket);
  server.on('connection', onConnection);
  const body = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'gave-up-1',
    ...CALL,
    tool_use_id: toolUseId,
  });
  const held = request(`${d.url}/agent_api/v1/hooks/claude-code/wait-60000`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${d.tokens.agent}`, 'content-type': 'application/json' },
  });
  held.on('error', () => {});
  held.end(body);
  return {
    async giveUp() {
      const clientSocket = held.socket;
      if (!clientSocket) throw new Error('the held request has no socket');
      const port = clientSocket.localPort;
      const serverSide = accepted.find((socket) => socket.remotePort === port);
      server.off('connection', onConnection);
      if (!serverSide) throw new Error('the kernel never accepted the held request');
      const closed = new Promise<void>((resolve) => serverSide.once('close', () => resolve()));
      held.destroy();
      await closed;
    },
  };
}

/**
 * A native hook request (Claude Code's HTTP hook) held while its call waits
 * for a person, whose client gives up (the user pressed Esc, the agent's
 * hook timeout fired): an approval that lands afterwards must not be taken
 * by the request nobody reads. The identical call made again is granted,
 * once, on the approved row.
 */
describe.skipIf(!sqlite)('a native hook request whose client gave up while it waited', () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('leaves the approval to the retry, which runs on the same row', async () => {
    d = await deploy(sqlite!);
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
    const held = heldPreToolUse(d, 'tu-1');
    const parked = await waitFor(
      async () => {
        const listed = (await d.member.get(`${d.ws}/decisions`)).body.decisions;
        return listed.length > 0 ? (listed[0] as { run_id: string; key: string }) : null;
      },
      { what: 'the held call parked' },
    );
    await held.giveUp();
    const approved = await d.member.post(
      `${d.ws}/runs/${parked.run_id}/tasks/${parked.key}/approve`,
      {},
    );
    expect(approved.status).toBe(200);
    const task = `${d.ws}/runs/${parked.run_id}/tasks/${parked.key}`;
    // Were the abandoned request still polling, it would take the approval within its poll delay.
    await waitFor(async () => (await d.member.get(task)).body.state === 'claimed', {
      timeoutMs: OLD_POLL_WINDOW_MS,
    }).catch(() => null);
    expect((await d.member.get(task)).body.state).toBe('runnable');

    const retry = await preToolUse(d, 'tu-2');
    expect(retry.status).toBe(200);
    const answer = await retry.json();
    expect(answer.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
    const row = (await d.member.get(task)).body;
    expect(row).toMatchObject({ state: 'claimed', attempts: 1 });
    const tasks = (await d.member.get(`${d.ws}/runs/${parked.run_id}/tasks`)).body
      .tasks as unknown[];
    expect(tasks).toHaveLength(1);
  });
});
