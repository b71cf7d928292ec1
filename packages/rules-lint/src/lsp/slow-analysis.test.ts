import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { type LspSession, startLspSession } from '../testing/lsp-client.js';

/** A list crafted to spend a lint rule's whole work budget: over a second of analysis each. */
const PADDED = readFileSync(
  join(import.meta.dirname, '..', 'analysis', 'fixtures', 'budget-evasion.json'),
  'utf8',
);
const SMALL =
  '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "s"}\n]\n';

const root = mkdtempSync(join(tmpdir(), 'rules-lint-lsp-slow-'));
const uriOf = (name: string) => pathToFileURL(join(root, name)).href;

let lsp: LspSession;
beforeAll(async () => {
  lsp = await startLspSession(buildDist(), root);
});
afterAll(async () => {
  await lsp?.close();
});

function open(uri: string, text: string, version = 1): Promise<void> {
  return lsp.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'json', version, text },
  });
}

/** Waits without asserting anything about time: only lets the server start on what it was sent. */
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('the language server while a slow file is analysed', () => {
  it('analyses an unchanged document once after a burst of config changes, not once per change', async () => {
    const uri = uriOf('watched.json');
    await open(uri, PADDED);
    for (let change = 0; change < 8; change++)
      await lsp.connection.sendNotification('workspace/didChangeWatchedFiles', {
        changes: [{ uri: uriOf('rules-lint.config.json'), type: 2 }],
      });
    // A document opened after the burst is analysed after whatever the burst left queued.
    const after = uriOf('after-burst.json');
    const published = lsp.nextDiagnostics(after);
    await open(after, SMALL);
    await published;
    const analysedBefore = lsp.published.filter((message) => message.uri === uri);
    // Each change made the analyses under way stale; only the last one's is published.
    expect(analysedBefore.length).toBeGreaterThanOrEqual(1);
    expect(analysedBefore.length).toBeLessThanOrEqual(2);
  }, 120_000);

  it('answers a hover on another document before any slow analysis is published', async () => {
    const slow = ['slow-1.json', 'slow-2.json', 'slow-3.json'].map(uriOf);
    const lastSlow = lsp.nextDiagnostics(slow[2]!);
    for (const uri of slow) await open(uri, PADDED);
    const small = uriOf('small.json');
    await open(small, SMALL);
    await pause(300);
    const hover = (await lsp.connection.sendRequest('textDocument/hover', {
      textDocument: { uri: small },
      position: { line: 1, character: 6 },
    })) as { contents: { value: string } } | null;
    expect(hover?.contents.value).toContain('write');
    const slowPublishedBeforeHover = lsp.published.filter((message) => slow.includes(message.uri));
    expect(slowPublishedBeforeHover).toEqual([]);
    // The slow files were analysed in full all the same, as check analyses them.
    const diagnostics = await lastSlow;
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toContain('analysis-incomplete');
  }, 120_000);

  it('never publishes a version that a newer one replaced during its analysis', async () => {
    const uri = uriOf('edited.json');
    await open(uri, PADDED, 1);
    await pause(300);
    const current = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: SMALL }],
    });
    expect((await current).map((diagnostic) => diagnostic.code)).toEqual(['fragment-without-star']);
    // A later document's analysis runs after anything left of version 1's: a barrier.
    const barrier = uriOf('barrier.json');
    const behind = lsp.nextDiagnostics(barrier);
    await open(barrier, SMALL);
    await behind;
    const versions = lsp.published
      .filter((message) => message.uri === uri)
      .map((message) => message.version);
    expect(versions).toEqual([2]);
  }, 120_000);
  it('answers a completion in a slow document itself before its own analysis is published', async () => {
    // Two slow files ahead of it on the one analysis thread: its own analysis starts after theirs.
    const ahead = ['ahead-1.json', 'ahead-2.json'].map(uriOf);
    for (const uri of ahead) await open(uri, PADDED);
    const uri = uriOf('completed.json');
    const analysed = lsp.nextDiagnostics(uri);
    await open(uri, PADDED);
    const completion = (await lsp.connection.sendRequest('textDocument/completion', {
      textDocument: { uri },
      position: { line: 0, character: PADDED.indexOf('"verdict": "') + 12 },
    })) as { label: string }[];
    expect(completion.map((item) => item.label)).toEqual(['allow', 'ask', 'deny']);
    expect(lsp.published.filter((message) => message.uri === uri)).toEqual([]);
    // Its analysis still runs in full afterwards.
    expect((await analysed).map((diagnostic) => diagnostic.code)).toContain('analysis-incomplete');
  }, 120_000);
});
