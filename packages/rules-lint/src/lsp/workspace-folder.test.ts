import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { type LspSession, startLspSession } from '../testing/lsp-client.js';

// The server runs in a folder above the workspace, as an editor started from a home folder may run it.
const home = mkdtempSync(join(tmpdir(), 'rules-lint-lsp-workspace-'));
const workspace = join(home, 'project');
const outside = join(home, 'elsewhere');
mkdirSync(workspace);
mkdirSync(outside);
writeFileSync(join(outside, 'secret.json'), '{"rules": {"s3cr3t-rule": "error"}}');
const RULES = '[\n  {"tool": "read", "verdict": "allow"}\n]\n';

let lsp: LspSession;
beforeAll(async () => {
  lsp = await startLspSession(buildDist(), home, [], pathToFileURL(workspace).href);
});
afterAll(async () => {
  await lsp?.close();
});

async function diagnosticsOf(folder: string) {
  const uri = pathToFileURL(join(folder, 'agent.json')).href;
  const received = lsp.nextDiagnostics(uri);
  await lsp.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'json', version: 1, text: RULES },
  });
  return received;
}

describe('the language server reads files only inside the workspace folder', () => {
  it('does not read a config that a link leads out of the workspace, even inside its own working folder', async () => {
    const linked = join(workspace, 'linked');
    mkdirSync(linked);
    symlinkSync(join(outside, 'secret.json'), join(linked, 'rules-lint.config.json'));
    writeFileSync(join(linked, 'agent.json'), RULES);
    const diagnostics = await diagnosticsOf(linked);
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['config_invalid']);
    expect(diagnostics[0]?.message).toContain('not read (outside-working-folder)');
    expect(diagnostics[0]?.message).not.toContain('s3cr3t');
  });

  it('reads a config that a link leads elsewhere inside the workspace', async () => {
    const shared = join(workspace, 'shared.json');
    writeFileSync(shared, '{"rules": {"no-such-rule": "error"}}');
    const aliased = join(workspace, 'aliased');
    mkdirSync(aliased);
    symlinkSync(shared, join(aliased, 'rules-lint.config.json'));
    writeFileSync(join(aliased, 'agent.json'), RULES);
    const diagnostics = await diagnosticsOf(aliased);
    expect(diagnostics[0]?.message).toContain('no lint rule "no-such-rule"');
  });
});
