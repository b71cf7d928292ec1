/**
 * Profiles `airlock serve` on SQLite under the park-then-approve load and
 * prints where its CPU goes: self time by function and by package.
 *
 *   pnpm --filter @airlock/server bench:profile [-- --seconds 8 --top 40]
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { post } from './http-client.js';
import { startServer } from './server-process.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '8' },
    top: { type: 'string', default: '40' },
  },
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a script lives, shortened: a package name or a path under packages/. */
function origin(url: string): string {
  if (!url) return '(native)';
  const modules = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const own = /packages\/([^/]+)\/(?:dist|src)\/(.*)$/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (url.startsWith('node:')) return url;
  return url.slice(-60);
}

async function main() {
  const profileDir = mkdtempSync(join(tmpdir(), 'airlock-profile-'));
  process.env.AIRLOCK_BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
  const server = await startServer(null);
  let trips = 0;
  try {
    const end = performance.now() + Number(values.seconds) * 1000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < end) {
          const run = await post(server.url, server.agent, `${server.ws}/runs`, {
            approval_mode: 'ask',
            input: 'bench',
            provider: {
              kind: 'scripted',
              rounds: [
                { tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] },
                { final: 'ok' },
              ],
            },
          });
          const key = run.attention[0]?.blocked_task_keys[0];
          await post(
            server.url,
            server.member,
            `${server.ws}/runs/${run.id}/tasks/${key}/approve`,
            {},
          );
          trips += 1;
        }
      }),
    );
  } finally {
    await server.cleanup();
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile in ${profileDir}`);
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const byFunction = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    const where = origin(frame.url);
    const name = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byOrigin.set(where, (byOrigin.get(where) ?? 0) + us);
  }
  const perTrip = (us: number) => (us / trips).toFixed(1);
  console.log(
    `${trips} round trips, ${(total / 1000).toFixed(0)} ms sampled, ${perTrip(total)} µs per round trip`,
  );
  const print = (title: string, map: Map<string, number>) => {
    console.log(`\n| µs per round trip | share | ${title} |\n| ---: | ---: | --- |`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
      console.log(`| ${perTrip(us)} | ${((100 * us) / total).toFixed(1)} % | ${name} |`);
    }
  };
  print('where (self time)', byOrigin);
  print('function (self time)', byFunction);
  console.log(`\nprofile: ${join(profileDir, file)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
