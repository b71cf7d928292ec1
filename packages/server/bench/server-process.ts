import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The server package's folder. */
export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A real `airlock serve` process and the tokens its banner printed. */
export interface Server {
  child: ChildProcess;
  url: string;
  /** The REST prefix of its workspace: `/api/v1/workspaces/ws_…`. */
  ws: string;
  workspaceId: string;
  agent: string;
  member: string;
  cleanup(): Promise<void>;
}

/** Creates an empty database beside the one `base` names and returns its URL. */
export async function freshDatabase(base: string): Promise<string> {
  const url = new URL(base);
  const name = `airlock_bench_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Starts `airlock serve` on a free port: SQLite in a temp dir, or the given
 * PostgreSQL URL. A second process on the same database shares its workspace.
 * `cli` runs another build's `dist/cli.js` (default: this package's); `args`
 * are more `airlock serve` options (e.g. `--durability relaxed`).
 */
export async function startServer(
  databaseUrl: string | null,
  options: { joining?: Server; cli?: string; args?: string[]; dataDir?: string } = {},
): Promise<Server> {
  const joining = options.joining;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'airlock-bench-'));
  const cli = options.cli ?? join(packageDir, 'dist/cli.js');
  const args = [cli, 'serve', '--port', '0', '--data-dir', dataDir];
  // A process joining a shared database prints no tokens: its address comes from its log.
  args.push('--no-demo', '--log-level', joining ? 'info' : 'warn');
  // Benchmarks measure the kernel, not the per-credential rate limit PostgreSQL turns on by default.
  if (databaseUrl) args.push('--database-url', databaseUrl, '--rate-limit', 'off');
  // The feed cases hold up to 1,000 sockets of one credential, the cap itself, while the last
  // case's may still be closing. Only this build knows the flag (another one may be older).
  if (!options.cli) args.push('--max-feeds', 'off');
  args.push(...(options.args ?? []));
  const nodeArgs = (process.env.AIRLOCK_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '' },
  });
  let banner = '';
  await new Promise<void>((done, fail) => {
    const read = (chunk: Buffer) => {
      banner += chunk;
      if (joining ? banner.includes('kernel listening') : /member token[^\n]*\n/.test(banner)) {
        done();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${banner}`)));
  });
  const pick = (re: RegExp) => {
    const found = re.exec(banner);
    if (!found) throw new Error(`no ${re} in the banner: ${banner}`);
    return found[1]!;
  };
  const workspaceId = joining ? joining.workspaceId : pick(/workspace\s+(\S+)/);
  return {
    child,
    url: joining ? pick(/"url":"(http:[^"]+)"/) : pick(/ready at (http:\/\/\S+)/),
    ws: `/api/v1/workspaces/${workspaceId}`,
    workspaceId,
    agent: joining ? joining.agent : pick(/agent token\s+(\S+)/),
    member: joining ? joining.member : pick(/member token\s+(\S+)/),
    async cleanup() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU time (user + system) a process has used in ms, from /proc; NaN where there is none. */
export function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time (ms) of every PostgreSQL process on this machine (the database the
 * benchmark talks to runs here); 0 where there is none.
 */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const used = processCpuMs(Number(entry));
    if (!Number.isNaN(used)) total += used;
  }
  return total;
}
