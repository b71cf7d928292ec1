import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from './cli.js';

/** What `main` wrote on stdout and stderr, and its exit code. */
async function ran(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const code = await main(argv);
  vi.restoreAllMocks();
  return { code, stdout, stderr };
}

describe('airlock-mcp without a command it knows', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('an unknown command is a usage error on stderr naming it (exit 2), nothing on stdout', async () => {
    const { code, stdout, stderr } = await ran(['bogus']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^airlock mcp: unknown command bogus\n/);
    expect(stderr).toContain('Usage: airlock executor mcp');
  });

  it.each([[[]], [['--help']], [['-h']]])('%j prints the help on stdout (exit 0)', async (argv) => {
    const { code, stdout, stderr } = await ran(argv);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: airlock executor mcp');
    expect(stderr).toBe('');
  });
});
