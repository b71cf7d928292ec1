import { Worker } from 'node:worker_threads';
import type { Airlock } from '../airlock.js';
import { firstTaskState } from '../store/tasks.js';
import { type LoopStalls, watchLoopStalls } from './loop-stalls.js';

/**
 * Shell text of `bytes` UTF-8 bytes. `script`: the shapes a model writes when
 * it pastes a large script (many `&&`/`;`/`|` segments, quoted arguments,
 * redirections, a heredoc and command substitutions), so that every part of
 * the classifier reads it. `dense`: `ls;` over and over, the most segments
 * per byte.
 */
export function largeCommand(bytes: number, shape: 'script' | 'dense' = 'script'): string {
  if (shape === 'dense') return 'ls;'.repeat(Math.ceil(bytes / 3)).slice(0, bytes);
  const lines = [
    'cd /srv/app && git status --short | grep -v "^??" > /tmp/changed.txt',
    'sed -n \'1,20p\' src/main.ts; echo "done $(date +%s)" >> build.log',
    'npm run build -- --mode=production || { echo failed; exit 1; }',
    'for f in $(ls src/*.ts); do wc -l "$f"; done | sort -n | tail -5',
    "cat <<'EOF' > notes.md\nline one with `backticks` and $dollars\nEOF",
    'curl -sS https://example.com/api/v1/items?page=2 | jq ".items[] | .id"',
    'rm -f ./tmp/cache-*.json && mkdir -p ./tmp && touch ./tmp/.keep',
  ];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${lines[i % lines.length]} # step ${i}\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('').slice(0, bytes);
}

/**
 * A standalone run create body whose one call carries `command` as `bash` in
 * `ask` mode, under a manifest, the supervised rule set and an action
 * contract: every policy layer reads the call, and the row parks.
 */
export function largeCommandRun(command: string): Record<string, unknown> {
  return {
    approval_mode: 'ask',
    input: 'run the pasted script',
    tool_manifest: [
      {
        name: 'bash',
        input_schema: {
          type: 'object',
          required: ['command'],
          properties: { command: { type: 'string' } },
        },
        risk_traits: ['execute'],
      },
    ],
    permission_rule_set: 'supervised',
    action_contract: {
      contract_version: 1,
      authorization: { requires_user: ['action:network'], forbidden: ['command-prefix:git push'] },
    },
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'done' }],
    },
  };
}

/**
 * Posts from a worker thread, so that encoding and sending 800 KB costs this
 * loop nothing. `id` is the created row's, from a REST answer or a tRPC one.
 */
export function postFromWorker(
  url: string,
  token: string,
  body: string,
): Promise<{ status: number; id: string }> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     fetch(workerData.url, {
       method: 'POST',
       headers: { authorization: 'Bearer ' + workerData.token, 'content-type': 'application/json' },
       body: workerData.body,
     }).then(async (response) => {
       const answer = await response.json();
       parentPort.postMessage({ status: response.status, id: answer.id ?? answer.result?.data?.id });
     });`,
    { eval: true, workerData: { url, token, body } },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (answer: { status: number; id: string }) => {
      void worker.terminate();
      resolve(answer);
    });
    worker.once('error', reject);
  });
}

/** Where a run is posted: a kernel of this process, a workspace of it and an agent token. */
export interface ParkTarget {
  airlock: Airlock;
  /** `/api/v1/workspaces/{ws}` */
  ws: string;
  agentToken: string;
  /** Posted to REST (`POST {ws}/runs`, the default) or to tRPC (`/trpc/runs.create`). */
  surface?: 'rest' | 'trpc';
}

/**
 * The longest stalls of this process's event loop (the kernel's: it runs
 * here) between posting a run (from {@link largeCommandRun}) whose one
 * `bash` call carries `input` and that call resting parked. The park is
 * watched in the store itself, so that no polling request (which would carry
 * the value back) loads the loop.
 * @throws Error when the create is not 201 or the call does not park.
 */
export async function stallWhileParking(
  target: ParkTarget,
  input: Record<string, string>,
): Promise<LoopStalls> {
  const run = largeCommandRun('');
  (run.provider as { rounds: { tool_calls?: { input: unknown }[] }[] }).rounds[0]!
    .tool_calls![0]!.input = input;
  const trpc = target.surface === 'trpc';
  const workspaceId = target.ws.split('/').at(-1);
  const body = JSON.stringify(trpc ? { workspace_id: workspaceId, ...run } : run);
  const watch = watchLoopStalls();
  const url = `${target.airlock.url}${trpc ? '/trpc/runs.create' : `${target.ws}/runs`}`;
  const created = await postFromWorker(url, target.agentToken, body);
  if (created.status !== (trpc ? 200 : 201)) {
    throw new Error(`the run was not created: ${created.status}`);
  }
  for (;;) {
    const state = await firstTaskState(target.airlock.store, created.id);
    if (state === 'needs_approval') break;
    if (state && state !== 'ready') throw new Error(`the call did not park: ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return watch.stop();
}
