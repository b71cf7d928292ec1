import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { runCaptured } from '../testing/capture.js';
import { type LspSession, startLspSession } from '../testing/lsp-client.js';

const project = mkdtempSync(join(tmpdir(), 'rules-lint-lsp-document-path-'));
mkdirSync(join(project, '.airlock'));
// A guardrail: only a user overlay may hold one, so a repository's file is refused.
const GUARDRAIL =
  '[{"ruleSetId": "supervised", "rules": [{"verdict": "deny", "guardrail": true}]}]';
writeFileSync(join(project, '.airlock/permissions.json'), GUARDRAIL);
const FIXABLE =
  '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "s"}\n]\n';

let lsp: LspSession;
beforeAll(async () => {
  lsp = await startLspSession(buildDist(), project, [], pathToFileURL(project).href);
});
afterAll(async () => {
  await lsp?.close();
});

async function open(uri: string, text: string) {
  const received = lsp.nextDiagnostics(uri);
  await lsp.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'json', version: 1, text },
  });
  return received;
}

describe('an editor document is analysed under its real path', () => {
  it("checks a repository's .airlock/permissions.json as a project document, as check does", async () => {
    const uri = pathToFileURL(join(project, '.airlock/permissions.json')).href;
    const diagnostics = await open(uri, GUARDRAIL);
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['permission_rule_invalid']);
    const cli = await runCaptured(
      ['check', '--format', 'json', '.airlock/permissions.json'],
      project,
    );
    expect(cli.code).toBe(1);
  });

  it('checks it as a project document when check runs from inside .airlock too', async () => {
    const run = await runCaptured(['check', 'permissions.json'], join(project, '.airlock'));
    expect(run.stdout).toContain('permission_rule_invalid');
    expect(run.code).toBe(1);
  });

  it('lints and offers fixes for a document whose URI holds a malformed escape', async () => {
    const uri = `${pathToFileURL(project).href}/a%ZZ.json`;
    const diagnostics = await open(uri, FIXABLE);
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['fragment-without-star']);
    const actions = await lsp.connection.sendRequest<{ title: string }[]>(
      'textDocument/codeAction',
      {
        textDocument: { uri },
        range: diagnostics[0]!.range,
        context: { diagnostics: [] },
      },
    );
    expect(actions.map((action) => action.title)).toEqual([
      expect.stringContaining('fragment-without-star'),
    ]);
  });
});
