import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { lintText } from '../lint.js';
import { buildDist } from '../testing/build-dist.js';
import { type LspSession, startLspSession } from '../testing/lsp-client.js';

const PROFILE = `{
  "approval_mode": "ask",
  "permission_rule_set": "team",
  "custom_rule_sets": [
    {"id": "team", "rules": [{"verdict": "deny", "targets": ["secrets/**"], "reason": "secrets stay local"}]}
  ]
}
`;

// A real folder, so the server sees the document inside its workspace folder.
const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'rules-lint-project-root-')));
mkdirSync(join(workspace, 'policies'));
const uri = pathToFileURL(join(workspace, 'policies', 'agent.json')).href;

let lsp: LspSession;
beforeAll(async () => {
  lsp = await startLspSession(buildDist(), workspace, [], pathToFileURL(workspace).href);
});
afterAll(async () => {
  await lsp?.close();
});

interface Action {
  title: string;
  isPreferred?: boolean;
  edit: { changes: Record<string, { range: never; newText: string }[]> };
}

describe('the quick fix for targets-without-project-root', () => {
  it('sets project_root to the workspace folder, after which the warning is gone', async () => {
    const published = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text: PROFILE },
    });
    const diagnostics = await published;
    const warning = diagnostics.find(
      (diagnostic) => diagnostic.code === 'targets-without-project-root',
    );
    expect(warning?.range.start.line).toBe(4);
    const actions = (await lsp.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: warning!.range,
      context: { diagnostics: [warning] },
    })) as Action[];
    const fix = actions.find((action) => action.title.includes('project_root'));
    expect(fix?.title).toBe(
      `Set project_root to the workspace folder "${workspace}" (targets-without-project-root)`,
    );
    expect(fix?.isPreferred).toBe(false);
    const fixed = TextDocument.applyEdits(
      TextDocument.create(uri, 'json', 1, PROFILE),
      fix!.edit.changes[uri]!,
    );
    expect(JSON.parse(fixed).project_root).toBe(workspace);
    // Added on its own line, the rest of the file as written.
    expect(fixed).toBe(
      PROFILE.replace('  ]\n}', `  ],\n  "project_root": ${JSON.stringify(workspace)}\n}`),
    );
    const relinted = lintText('agent.json', fixed);
    if (!relinted.ok) throw new Error(relinted.message);
    expect(relinted.findings.map((finding) => finding.code)).toEqual([]);
  });
});
