import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { runCaptured } from '../testing/capture.js';
import { type LspSession, startLspSession, type WireDiagnostic } from '../testing/lsp-client.js';
import { startRawLsp } from '../testing/raw-lsp.js';

const SEVERITY = { error: 1, warning: 2, info: 3 } as const;
const root = mkdtempSync(join(tmpdir(), 'rules-lint-lsp-config-'));
const team = join(root, 'team');
mkdirSync(team);
writeFileSync(
  join(team, 'rules-lint.config.jsonc'),
  '// the team turns a warning into an error and names its tools\n{"rules": {"deny-without-reason": "error", "redundant-rule": "off"}, "tools": ["bash", "read"]}\n',
);
const RULES =
  '[\n  {"tool": "bash", "verdict": "deny"},\n  {"tool": "bsh", "verdict": "allow"},\n  {"tool": "read", "verdict": "allow"},\n  {"tool": "read", "verdict": "allow"}\n]\n';
writeFileSync(join(team, 'agent.json'), RULES);

let lsp: LspSession;
beforeAll(async () => {
  lsp = await startLspSession(buildDist(), root);
});
afterAll(async () => {
  await lsp?.close();
});

interface JsonFinding {
  code: string;
  severity: keyof typeof SEVERITY;
  message: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}

function asCheckSees(diagnostic: WireDiagnostic) {
  return {
    code: diagnostic.code,
    severity: diagnostic.severity,
    message: diagnostic.message,
    range: diagnostic.range,
  };
}

describe('the language server honours rules-lint.config.jsonc', () => {
  it('publishes exactly the findings check reports for the same file: severities, tools catalog, rules turned off', async () => {
    const check = await runCaptured(['check', '--format', 'json', 'team/agent.json'], root);
    expect(check.code).toBe(1);
    const findings: JsonFinding[] = JSON.parse(check.stdout).files[0].findings;
    // The config is what makes these two errors: without it the editor showed neither as one.
    expect(findings.map((finding) => [finding.code, finding.severity])).toEqual([
      ['deny-without-reason', 'error'],
      ['unknown-tool', 'error'],
    ]);

    const uri = pathToFileURL(join(team, 'agent.json')).href;
    const received = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text: RULES },
    });
    const diagnostics = await received;
    expect(diagnostics.map(asCheckSees)).toEqual(
      findings.map((finding) => ({
        code: finding.code,
        severity: SEVERITY[finding.severity],
        message: finding.message,
        range: {
          start: { line: finding.line - 1, character: finding.column - 1 },
          end: { line: finding.end_line - 1, character: finding.end_column - 1 },
        },
      })),
    );
  });

  it('completes tool names from the config catalog', async () => {
    const uri = pathToFileURL(join(team, 'new.json')).href;
    const text = '[{"tool": "';
    const received = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text },
    });
    await received;
    const items = (await lsp.connection.sendRequest('textDocument/completion', {
      textDocument: { uri },
      position: { line: 0, character: text.length },
    })) as { label: string }[];
    expect(items.map((item) => item.label)).toEqual(expect.arrayContaining(['bash', 'read']));
  });

  it("hovers a rule under the config's mode, the mode its diagnostics were computed under", async () => {
    const folder = join(root, 'bypass');
    mkdirSync(folder);
    writeFileSync(join(folder, 'rules-lint.config.json'), '{"mode": "bypass"}\n');
    const text = '[\n  {"tool": "bash", "verdict": "ask"}\n]\n';
    writeFileSync(join(folder, 'agent.json'), text);
    const check = await runCaptured(['check', '--format', 'json', 'bypass/agent.json'], root);
    const codes = (list: { code: string }[]) => list.map((finding) => finding.code);
    // Under bypass an ask rule for model calls does nothing: check knows the mode from the config.
    expect(codes(JSON.parse(check.stdout).files[0].findings)).toEqual(['unreachable-unmatched']);

    const hoverAt = async (file: string, body: string, marker: string) => {
      const uri = pathToFileURL(join(folder, file)).href;
      const received = lsp.nextDiagnostics(uri);
      await lsp.connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'json', version: 1, text: body },
      });
      const diagnostics = await received;
      const lines = body.slice(0, body.indexOf(marker)).split('\n');
      const hover = (await lsp.connection.sendRequest('textDocument/hover', {
        textDocument: { uri },
        position: { line: lines.length - 1, character: lines.at(-1)!.length },
      })) as { contents: { value: string } };
      return { diagnostics, value: hover.contents.value };
    };
    const bare = await hoverAt('agent.json', text, '"ask"');
    expect(codes(bare.diagnostics)).toEqual(['unreachable-unmatched']);
    expect(bare.value).toContain(
      '| bypass (this file, by rules-lint.config.json) | granted (by the mode: bypass never parks) |',
    );
    expect(bare.value).toContain('| ask | parked for a person |');

    // A profile's own approval_mode wins over the config's, in the diagnostics and in the hover.
    const profile = `{"approval_mode": "ask", "approval_rules": ${text}}`;
    const own = await hoverAt('agent.profile.json', profile, '"ask"}');
    expect(codes(own.diagnostics)).toEqual(['ask-noop-in-ask-mode']);
    expect(own.value).toContain('| ask (this file) | parked for a person |');
    expect(own.value).toContain('| bypass | granted (by the mode: bypass never parks) |');
  });

  it('shows a broken config as one error, as check refuses it', async () => {
    const broken = join(root, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'rules-lint.config.json'), '{"rules": {"no-such-rule": "error"}}');
    writeFileSync(join(broken, 'agent.json'), RULES);
    expect((await runCaptured(['check', 'broken/agent.json'], root)).code).toBe(2);
    const uri = pathToFileURL(join(broken, 'agent.json')).href;
    const received = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text: RULES },
    });
    const diagnostics = await received;
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['config_invalid']);
    expect(diagnostics[0]?.message).toContain('no lint rule "no-such-rule"');
  });

  it('does not read a config that a link leads out of the working folder, as check does not', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'rules-lint-lsp-outside-'));
    writeFileSync(join(outside, 'secret.json'), '{"rules": {"s3cr3t-rule": "error"}}');
    const linked = join(root, 'linked');
    mkdirSync(linked);
    symlinkSync(join(outside, 'secret.json'), join(linked, 'rules-lint.config.json'));
    writeFileSync(join(linked, 'agent.json'), RULES);
    const check = await runCaptured(['check', 'linked/agent.json'], root);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('not read (outside-working-folder)');
    const uri = pathToFileURL(join(linked, 'agent.json')).href;
    const received = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text: RULES },
    });
    const diagnostics = await received;
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['config_invalid']);
    expect(diagnostics[0]?.message).toContain('not read (outside-working-folder)');
    expect(diagnostics[0]?.message).not.toContain('s3cr3t');
  });
});

describe('the language server when a config changes on disk', () => {
  it('lints every open document again on workspace/didChangeWatchedFiles', async () => {
    const folder = join(root, 'changing');
    mkdirSync(folder);
    const config = join(folder, 'rules-lint.config.json');
    writeFileSync(config, '{"rules": {}}\n');
    const uri = pathToFileURL(join(folder, 'agent.json')).href;
    const opened = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text: RULES },
    });
    const before = await opened;
    expect(before.find((d) => d.code === 'deny-without-reason')?.severity).toBe(SEVERITY.info);

    writeFileSync(config, '{"rules": {"deny-without-reason": "error"}}\n');
    const relinted = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: pathToFileURL(config).href, type: 2 }],
    });
    const after = await relinted;
    expect(after.find((d) => d.code === 'deny-without-reason')?.severity).toBe(SEVERITY.error);
  });

  it('offers quick fixes for the findings it published, until it hears that the config changed', async () => {
    const folder = join(root, 'quiet');
    mkdirSync(folder);
    const config = join(folder, 'rules-lint.config.json');
    writeFileSync(config, '{"rules": {"fragment-without-star": "off"}}\n');
    const text =
      '[{"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "s"}]\n';
    const uri = pathToFileURL(join(folder, 'agent.json')).href;
    const opened = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'json', version: 1, text },
    });
    expect(await opened).toEqual([]);
    const at = text.indexOf('".env"') + 1;
    const fixes = async () =>
      (await lsp.connection.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: 0, character: at }, end: { line: 0, character: at } },
        context: { diagnostics: [] },
      })) as { title: string }[];

    // Edited on disk, not yet reported: the editor still shows no finding, so no fix either.
    writeFileSync(config, '{"rules": {}}\n');
    expect(await fixes()).toEqual([]);

    const relinted = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: pathToFileURL(config).href, type: 2 }],
    });
    expect((await relinted).map((d) => d.code)).toEqual(['fragment-without-star']);
    expect((await fixes()).map((action) => action.title)).toEqual([
      'Add a leading "*": "*.env" (fragment-without-star)',
    ]);
  });

  it('asks a client that can watch files to watch the configs', async () => {
    const session = await startRawLsp(buildDist(), {
      capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
    });
    try {
      const request = await session.waitFor(
        (message) => message.method === 'client/registerCapability',
      );
      expect(request?.params).toEqual({
        registrations: [
          {
            id: expect.any(String),
            method: 'workspace/didChangeWatchedFiles',
            registerOptions: {
              watchers: [
                { globPattern: '**/rules-lint.config.json' },
                { globPattern: '**/rules-lint.config.jsonc' },
              ],
            },
          },
        ],
      });
    } finally {
      session.kill();
    }
  });
});
