import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config/lint-config.js';
import type { AnalysisJob } from './analyse-text.js';
import { AnalysisThread } from './analysis-thread.js';

// A real worker thread that never answers a text saying "hang" and echoes the file name of any other.
const folder = mkdtempSync(join(tmpdir(), 'rules-lint-thread-'));
const script = join(folder, 'worker.mjs');
writeFileSync(
  script,
  `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (job) => {
  if (job.text === 'hang') for (;;);
  parentPort.postMessage({ ok: true, findings: [], name: job.fileName });
});
`,
);

const job = (fileName: string, text: string): AnalysisJob => ({
  fileName,
  text,
  config: { ...DEFAULT_CONFIG, tools: undefined },
  tools: undefined,
});

const threads: AnalysisThread[] = [];
afterEach(() => {
  for (const thread of threads.splice(0)) thread.close();
});

function thread(deadlineMs = 60_000): AnalysisThread {
  const made = new AnalysisThread(pathToFileURL(script), deadlineMs);
  threads.push(made);
  return made;
}

describe('the language server analysis thread', () => {
  it('stops an analysis that is no longer current, and goes on with the next on a fresh thread', async () => {
    const analyses = thread();
    let current = true;
    const stuck = analyses.analyse(job('old.json', 'hang'), () => current);
    const next = analyses.analyse(job('new.json', '[]'), () => true);
    current = false;
    analyses.dropStale();
    expect(await stuck).toBeUndefined();
    expect(await next).toMatchObject({ ok: true, name: 'new.json' });
  });

  it('skips a queued analysis that stopped being current before its turn', async () => {
    const analyses = thread();
    let wanted = true;
    const first = analyses.analyse(job('first.json', '[]'), () => true);
    const skipped = analyses.analyse(job('skipped.json', '[]'), () => wanted);
    wanted = false;
    expect(await first).toMatchObject({ name: 'first.json' });
    expect(await skipped).toBeUndefined();
  });

  it('stops an analysis at its deadline with a reason', async () => {
    const analyses = thread(200);
    const stuck = analyses.analyse(job('slow.json', 'hang'), () => true);
    await expect(stuck).rejects.toThrow('analysis stopped after 0.2 s (deadline)');
  });

  it('analyses in place when no built worker is there (running from sources)', async () => {
    const inPlace = new AnalysisThread(pathToFileURL(join(folder, 'missing.js')));
    const outcome = await inPlace.analyse(job('p.json', '[]'), () => true);
    expect(outcome).toEqual({ ok: true, findings: [] });
  });
});
