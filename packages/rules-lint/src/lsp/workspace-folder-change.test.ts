import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { type LspSession, startLspSession } from '../testing/lsp-client.js';

// The server runs in a folder of its own; the editor opens one project, then adds a second.
const home = mkdtempSync(join(tmpdir(), 'rules-lint-lsp-folders-'));
const serverFolder = join(home, 'editor');
const first = join(home, 'first');
const second = join(home, 'second');
const outside = join(home, 'elsewhere');
for (const folder of [serverFolder, first, second, outside]) mkdirSync(folder);
// The second project's config is a link to a file outside it.
writeFileSync(join(outside, 'secret.json'), '{"rules": {"s3cr3t-rule": "error"}}');
symlinkSync(join(outside, 'secret.json'), join(second, 'rules-lint.config.json'));
const RULES = '[\n  {"tool": "read", "verdict": "allow"}\n]\n';
const folder = (path: string) => ({ uri: pathToFileURL(path).href, name: path });

let lsp: LspSession;
beforeAll(async () => {
  lsp = await startLspSession(buildDist(), serverFolder, [], null, {
    capabilities: { workspace: { workspaceFolders: true } },
    workspaceFolders: [folder(first)],
  });
});
afterAll(async () => {
  await lsp?.close();
});

const uri = pathToFileURL(join(second, 'agent.json')).href;
const codesOf = (diagnostics: { code?: unknown; message: string }[]) =>
  diagnostics.map((diagnostic) => `${String(diagnostic.code)}: ${diagnostic.message}`);

describe('workspace folders that change after start-up', () => {
  it('keeps a folder added later to its own files, and lets go when it is removed', async () => {
    // Outside every workspace folder, a file is read as the user named it: the link is followed.
    const opened = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text: RULES },
    });
    const before = codesOf(await opened);
    expect(before.join('\n')).toContain('no lint rule "s3cr3t-rule"');

    const afterAdding = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
      event: { added: [folder(second)], removed: [] },
    });
    const added = codesOf(await afterAdding).join('\n');
    expect(added).toContain('config_invalid');
    expect(added).toContain('not read (outside-working-folder)');
    expect(added).not.toContain('s3cr3t');

    const afterRemoving = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
      event: { added: [], removed: [folder(second)] },
    });
    expect(codesOf(await afterRemoving)).toEqual(before);
  });

  it('ignores a malformed change and keeps serving', async () => {
    const relinted = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
      event: { added: [{ uri: 7 }, null], removed: 'everything' },
    });
    expect(await relinted).toBeDefined();
    const hover = await lsp.connection.sendRequest('textDocument/hover', {
      textDocument: { uri },
      position: { line: 1, character: 5 },
    });
    expect(hover).not.toBeUndefined();
  });
});
