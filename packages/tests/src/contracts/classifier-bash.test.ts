import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  classifyShellCommand,
  evaluateActionContract,
  validateActionContract,
} from '@airlock/core';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Command lines that delete a file under real bash while reading as
 * something else: each is run with `bash -c` in a throwaway folder (to
 * check bash still deletes with it) and must get a tag the contract below
 * refuses or asks on, never `read` alone.
 */
const DELETING = [
  "find . -maxdepth 0 {-exec,sh,-c,'rm -rf victim',\\;}",
  'find . -name {victim,-delete}',
  'find victim {-delete,}',
  'rm {-rf,victim}',
  '{rm,-f,victim}',
  'timeout {5,rm} -f victim',
  'echo "-exec sh -c \'rm -rf victim\' ;" | xargs find . -maxdepth 0',
  'echo -delete | xargs find victim',
  "echo 'rm -f victim' | xargs env",
  "echo `echo \\'; rm -rf victim; echo \\'`",
  'echo "`echo \\\'; rm -rf victim; echo \\\'`"',
  'echo `echo \\"; rm -rf victim; echo \\"`',
  '<<<x\recho rm -rf victim',
  'echo hi \r# ; rm -rf victim',
  'cat <<EOF\r\nhi\nEOF\r\nrm -rf victim\nEOF',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'echo ${x:-<(rm -rf victim)}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'echo ${x:->(rm -rf victim)}',
  'cat <<EOF\nEO\\\nF\nrm -rf victim\nEOF',
  "echo 'rm -rf victim' | bash 3<<<ls",
  "echo 'rm -rf victim' | sh 3<<'EOF'\nls\nEOF",
  "echo 'rm -rf victim' > s; bash <<<ls <s",
  'set -- a; for x do rm -rf victim; done',
  "find . -name victim $'-delete\\0'",
  "find . -name victim $'-delete\\x00'",
  "find . -name victim $'-delete\\u0000'",
  'find . -name victim $"-delete"',
  '$"rm" -f victim',
];

const contract = (() => {
  const validated = validateActionContract({
    contract_version: 1,
    authorization: {
      forbidden: ['action:delete', 'action:destructive', 'command-prefix:rm'],
      requires_user: ['action:unknown'],
    },
  });
  if (!validated.ok) throw new Error('the contract does not validate');
  return validated.value;
})();

const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;
const root = mkdtempSync(join(tmpdir(), 'airlock-classifier-bash-'));

/** Whether `bash -c command` removes the file `victim` from a fresh folder. */
function bashDeletes(command: string, index: number): boolean {
  const folder = join(root, String(index));
  rmSync(folder, { recursive: true, force: true });
  spawnSync('mkdir', ['-p', folder]);
  writeFileSync(join(folder, 'victim'), 'x');
  spawnSync('bash', ['-c', command], {
    cwd: folder,
    timeout: 5000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: folder },
  });
  return !existsSync(join(folder, 'victim'));
}

describe('command lines real bash deletes with', () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(DELETING.map((command, index) => [command, index] as const))(
    'are never read-only: %j',
    (command, index) => {
      const tags = classifyShellCommand(command);
      expect(tags.some((tag) => ['delete', 'destructive', 'unknown'].includes(tag))).toBe(true);
      const verdict = evaluateActionContract(contract, {
        toolName: 'bash',
        toolInput: { command },
      });
      expect(['deny', 'ask']).toContain(verdict?.verdict);
      if (hasBash) expect(bashDeletes(command, index)).toBe(true);
    },
  );
});
