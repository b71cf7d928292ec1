import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILES, serverArguments } from './server-options.js';
import { buildExtension } from './testing/build-extension.js';

const run = promisify(execFile);
const packageDir = join(import.meta.dirname, '..');
const SEVERITY = { error: 1, warning: 2, info: 3 } as const;

let unpacked: string;

beforeAll(async () => {
  // What CI runs: build the extension and package it with @vscode/vsce.
  await buildExtension('package');
  unpacked = mkdtempSync(join(tmpdir(), 'airlock-vsix-'));
  await run('unzip', ['-q', join(packageDir, 'dist', 'airlock-rules-lint.vsix'), '-d', unpacked]);
}, 300_000);

function manifest() {
  return JSON.parse(readFileSync(join(unpacked, 'extension', 'package.json'), 'utf8'));
}

describe('the VS Code extension, packaged to a .vsix', () => {
  it('holds the client, the bundled server and the schema its manifest names, and nothing else of the repo', () => {
    const extension = manifest();
    expect(existsSync(join(unpacked, 'extension', extension.main))).toBe(true);
    for (const entry of extension.contributes.jsonValidation)
      expect(existsSync(join(unpacked, 'extension', entry.url))).toBe(true);
    expect(existsSync(join(unpacked, 'extension', 'dist', 'server', 'server.mjs'))).toBe(true);
    // The analysis thread the server loads from beside itself (else hover waits for slow files).
    expect(existsSync(join(unpacked, 'extension', 'dist', 'server', 'lint-worker.js'))).toBe(true);
    expect(existsSync(join(unpacked, 'extension', 'src'))).toBe(false);
    expect(extension.engines.vscode).toMatch(/^\^1\./);
    expect(extension.activationEvents).toContain('onLanguage:jsonc');
  });

  it('the client bundle needs only vscode and Node at run time (vscode-languageclient is inside)', () => {
    const code = readFileSync(join(unpacked, 'extension', 'dist', 'extension.cjs'), 'utf8');
    const required = new Set(
      [...code.matchAll(/require\("([^".][^"]*)"\)/g)].map((match) => match[1]!),
    );
    const outside = [...required].filter(
      (name) => name !== 'vscode' && !name.startsWith('node:') && !/^[a-z_]+$/.test(name),
    );
    expect(outside).toEqual([]);
    expect(required.has('vscode')).toBe(true);
    expect(code).toContain('textDocument/publishDiagnostics');
    // The client adds these to the server's arguments; the server test below starts it with them.
    expect(code).toContain('args.push("--stdio")');
    expect(code).toContain('--clientProcessId=');
  });

  it('the schema it associates is the rule file schema', () => {
    const schema = JSON.parse(
      readFileSync(join(unpacked, 'extension', 'dist', 'rule-file.schema.json'), 'utf8'),
    );
    expect(schema.title).toBe('Airlock rule file');
  });

  it('its bundled server, started from the unpacked .vsix, reports what check reports and offers the quick fix', async () => {
    const { startLspSession } = await import('../../rules-lint/src/testing/lsp-client.js');
    const dir = mkdtempSync(join(tmpdir(), 'airlock-vsix-lint-'));
    mkdirSync(join(dir, 'policies'));
    writeFileSync(
      join(dir, 'policies', 'rules-lint.config.jsonc'),
      '// team settings\n{"rules": {"deny-without-reason": "error"}, "tools": ["bash", "write"]}\n',
    );
    const text =
      '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets"},\n  {"tool": "bash", "verdict": "deny"}\n]\n';
    const file = join(dir, 'policies', 'agent.rules.json');
    writeFileSync(file, text);
    const server = join(unpacked, 'extension', 'dist', 'server', 'server.mjs');
    const check = await run(process.execPath, [server, 'check', '--format', 'json', file], {
      cwd: dir,
    }).catch((error: { stdout: string }) => error);
    const findings: { code: string; severity: keyof typeof SEVERITY; line: number }[] = JSON.parse(
      check.stdout,
    ).files[0].findings;
    expect(findings.map((finding) => [finding.code, finding.severity])).toEqual([
      ['fragment-without-star', 'warning'],
      ['deny-without-reason', 'error'],
    ]);

    // As vscode-languageclient starts it: the extension's arguments, then --stdio and --clientProcessId.
    expect(serverArguments({ files: [...DEFAULT_FILES], tools: '' })).toEqual(['lsp']);
    const lsp = await startLspSession(server, dir, [`--clientProcessId=${process.pid}`]);
    try {
      const uri = pathToFileURL(file).href;
      const received = lsp.nextDiagnostics(uri);
      await lsp.connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'json', version: 1, text },
      });
      const diagnostics = await received;
      expect(diagnostics.map((d) => [d.code, d.severity, d.range.start.line + 1])).toEqual(
        findings.map((f) => [f.code, SEVERITY[f.severity], f.line]),
      );
      expect(diagnostics[0]?.codeDescription?.href).toBe(
        'https://github.com/airlock/airlock/blob/main/docs/lint-rules.md#fragment-without-star',
      );
      const actions = (await lsp.connection.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: diagnostics[0]!.range,
        context: { diagnostics: [] },
      })) as { title: string }[];
      expect(actions.map((action) => action.title)).toEqual([
        'Add a leading "*": "*.env" (fragment-without-star)',
      ]);
    } finally {
      expect(await lsp.close()).toBe(0);
    }
  });
});
