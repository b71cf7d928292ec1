import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { inboxDistDir } from '@airlock/inbox';
import { build } from 'vite';
import { repoRoot } from '../support/browser.js';

/** What the page is built from: its own sources and the packages it bundles. */
const SOURCES = [
  join(repoRoot, 'packages', 'inbox', 'index.html'),
  join(repoRoot, 'packages', 'inbox', 'vite.config.ts'),
  join(repoRoot, 'packages', 'inbox', 'src', 'web'),
  join(repoRoot, 'packages', 'sdk', 'src'),
  join(repoRoot, 'packages', 'core', 'src'),
];

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

/** A digest of every source file the page is built from (path and content). */
function sourceDigest(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(filesUnder).sort()) {
    hash.update(relative(repoRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Builds the inbox page with Vite unless `dist/` already holds a build of
 * these very sources. The browser test files run in parallel workers: a
 * lock directory lets one of them build while the others wait, so no test
 * reads a `dist/` another worker is rewriting.
 */
export async function ensureInboxBuilt(): Promise<void> {
  const dist = inboxDistDir();
  const stamp = join(dist, '.sources-digest');
  const lock = join(dist, '.build-lock');
  const digest = sourceDigest();
  const current = () =>
    existsSync(join(dist, 'index.html')) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === digest;
  mkdirSync(dist, { recursive: true });
  for (const started = Date.now(); ; ) {
    if (current()) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another worker builds; a lock older than two minutes is a crashed build's.
      if (Date.now() - started > 120_000) rmdirSync(lock);
      await sleep(100);
    }
  }
  try {
    if (current()) return;
    await build({
      configFile: join(repoRoot, 'packages', 'inbox', 'vite.config.ts'),
      logLevel: 'warn',
    });
    writeFileSync(stamp, digest);
  } finally {
    rmdirSync(lock);
  }
}
