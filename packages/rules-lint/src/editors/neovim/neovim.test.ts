import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildDist } from '../../testing/build-dist.js';
import { runCaptured } from '../../testing/capture.js';

const run = promisify(execFile);

/** The one Lua block of docs/editors.md: the Neovim configuration a user copies. */
function docsNeovimConfig(): string {
  const page = readFileSync(join(import.meta.dirname, '../../../../../docs/editors.md'), 'utf8');
  const blocks = [...page.matchAll(/```lua\n([\s\S]*?)```/g)].map((match) => match[1]!);
  if (blocks.length !== 1)
    throw new Error(`docs/editors.md has ${blocks.length} lua blocks, not 1`);
  return blocks[0]!;
}

const probe = join(import.meta.dirname, 'lsp-probe.lua');

function neovimVersion(): string | undefined {
  try {
    return execFileSync('nvim', ['--version'], { encoding: 'utf8' }).split('\n')[0];
  } catch {
    return undefined;
  }
}
const version = neovimVersion();
if (!version)
  console.log(
    '[rules-lint tests] skipping the Neovim test: no `nvim` on PATH (Debian: apt-get install neovim; .ci/run installs it)',
  );

interface ProbeResult {
  error?: string;
  client: string;
  diagnostics: {
    code: string;
    severity: number;
    message: string;
    line: number;
    character: number;
    end_line: number;
    end_character: number;
    source: string;
  }[];
  hover: string | null;
  completion: string[];
}

const RULES = [
  '// rules for the build agent',
  '[',
  '  {"tool": "bash", "path": "command", "match": "rm -rf *", "verdict": "deny"},',
  '  {"tool": "bsh", "verdict": "allow"},',
  '  {"tool": "read", "verdict": "allow"}',
  ']',
  '',
].join('\n');

describe.skipIf(!version)(
  `a real editor: ${version ?? 'Neovim'} headless with its built-in LSP client`,
  () => {
    it('shows the diagnostics check reports (config honoured), a hover and a completion', {
      timeout: 120_000,
    }, async () => {
      const cli = buildDist();
      const dir = mkdtempSync(join(tmpdir(), 'rules-lint-nvim-'));
      writeFileSync(
        join(dir, 'rules-lint.config.jsonc'),
        '// severities and tools of the team\n{"rules": {"deny-without-reason": "error"}, "tools": ["bash", "read", "write"]}\n',
      );
      writeFileSync(join(dir, 'agent.rules.jsonc'), RULES);
      const lines = RULES.split('\n');
      const hoverAt = `3,${lines[3]!.indexOf('"verdict"')}`;
      const completeAt = `3,${lines[3]!.indexOf('"bsh"') + 1}`;
      // The configuration the docs give, as the user's init.lua, with `rules-lint` on PATH.
      writeFileSync(join(dir, 'init.lua'), docsNeovimConfig());
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      writeFileSync(
        join(bin, 'rules-lint'),
        `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`,
        {
          mode: 0o755,
        },
      );
      const out = join(dir, 'probe.json');
      const args = [
        '--headless',
        '-u',
        'init.lua',
        '-i',
        'NONE',
        '--noplugin',
        'agent.rules.jsonc',
      ];
      await run('nvim', [...args, '-c', `luafile ${probe}`], {
        cwd: dir,
        timeout: 240_000,
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          PROBE_OUT: out,
          PROBE_HOVER: hoverAt,
          PROBE_COMPLETE: completeAt,
        },
      });
      const result = JSON.parse(readFileSync(out, 'utf8')) as ProbeResult;
      expect(result.error, JSON.stringify(result)).toBeUndefined();
      expect(result.client).toBe('rules-lint');

      const check = await runCaptured(['check', '--format', 'json', 'agent.rules.jsonc'], dir);
      const findings: {
        code: string;
        severity: 'error' | 'warning' | 'info';
        message: string;
        line: number;
        column: number;
        end_line: number;
        end_column: number;
      }[] = JSON.parse(check.stdout).files[0].findings;
      // The config turns deny-without-reason into an error and its catalog makes "bsh" unknown.
      expect(findings.map((finding) => [finding.code, finding.severity])).toEqual(
        expect.arrayContaining([
          ['deny-without-reason', 'error'],
          ['unknown-tool', 'error'],
        ]),
      );
      const SEVERITY = { error: 1, warning: 2, info: 3 } as const;
      const byPosition = (a: { line: number; character: number }, b: typeof a) =>
        a.line - b.line || a.character - b.character;
      expect(
        result.diagnostics
          .map(({ code, severity, message, line, character, end_line, end_character }) => ({
            code,
            severity,
            message,
            line,
            character,
            end_line,
            end_character,
          }))
          .sort(byPosition),
      ).toEqual(
        findings
          .map((finding) => ({
            code: finding.code,
            severity: SEVERITY[finding.severity],
            message: finding.message,
            line: finding.line - 1,
            character: finding.column - 1,
            end_line: finding.end_line - 1,
            end_character: finding.end_column - 1,
          }))
          .sort(byPosition),
      );
      expect(result.diagnostics.every((diagnostic) => diagnostic.source === 'rules-lint')).toBe(
        true,
      );

      expect(result.hover).toContain('**rule 1**: allow');
      expect(result.completion).toEqual(['bash', 'read', 'write']);
    });

    it('opens a rule file without an error from the configuration when rules-lint is not on PATH', {
      timeout: 60_000,
    }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rules-lint-nvim-nopath-'));
      writeFileSync(join(dir, 'init.lua'), docsNeovimConfig());
      writeFileSync(join(dir, 'agent.rules.json'), RULES);
      const messages = join(dir, 'messages.txt');
      const nvim = execFileSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' }).trim();
      const keep = `vim.defer_fn(function() vim.cmd('redir! > ${messages} | silent messages | redir END'); vim.cmd('qall!') end, 1000)`;
      await run(
        nvim,
        [
          '--headless',
          '-u',
          'init.lua',
          '-i',
          'NONE',
          '--noplugin',
          'agent.rules.json',
          '-c',
          `lua ${keep}`,
        ],
        // Only the system folders: no node_modules/.bin, so no rules-lint.
        { cwd: dir, timeout: 50_000, env: { ...process.env, PATH: '/usr/bin:/bin' } },
      ).catch((error: { stderr?: string }) => error);
      const said = readFileSync(messages, 'utf8');
      expect(said).toMatch(/rules-lint/);
      expect(said).not.toMatch(/Error executing lua/);
    });
  },
);
