import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { type LspSession, startLspSession } from '../testing/lsp-client.js';

const folder = mkdtempSync(join(tmpdir(), 'rules-lint-lsp-deep-'));
const uri = pathToFileURL(join(folder, 'deep.rules.json')).href;
// A rule whose extra value nests far past any stack: recursive parsing of it would overflow.
const LEVELS = 100_000;
const DEEP = `[{"tool": "bash", "verdict": "allow", "x": ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}]`;

let lsp: LspSession;
beforeAll(async () => {
  lsp = await startLspSession(buildDist(), folder, [], pathToFileURL(folder).href);
});
afterAll(async () => {
  await lsp?.close();
});

describe('a document nested past the depth limit', () => {
  it('gets its one diagnostic, and hover and completion answer null instead of an internal error', async () => {
    const received = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text: DEEP },
    });
    expect((await received).map((diagnostic) => diagnostic.message)).toEqual([
      'nesting deeper than 256 levels',
    ]);
    const position = { line: 0, character: DEEP.indexOf('"bash"') + 2 };
    const at = { textDocument: { uri }, position };
    expect(await lsp.connection.sendRequest('textDocument/hover', at)).toBeNull();
    expect(await lsp.connection.sendRequest('textDocument/completion', at)).toBeNull();
  });
});
