import { describe, expect, it } from 'vitest';
import { checkAnswersAfterWalSync } from './syscall-trace.js';

const WAL = '/data/airlock.sqlite-wal';
const write = (pid: number) =>
  `${pid} 10:00:00.000001 pwrite64(7<${WAL}>, "7\\377\\0", 24, 32) = 24`;
const sync = (pid: number) => `${pid} 10:00:00.000002 fdatasync(7<${WAL}>) = 0`;
const answer = (pid: number) =>
  `${pid} 10:00:00.000003 writev(21<socket:[4242]>, [{iov_base="HTTP/1.1 200 OK\\r\\ncontent-type"..., iov_len=120}], 1) = 120`;

describe('checkAnswersAfterWalSync', () => {
  it('passes an answer written after the sync of every WAL write before it', () => {
    const report = checkAnswersAfterWalSync(
      [write(1), write(1), sync(1), answer(1)].join('\n'),
      WAL,
    );
    expect(report).toEqual({ answers: 1, walWrites: 2, walSyncs: 1, violations: [] });
  });

  it('fails an answer written before the sync, or after a sync that began before the write ended', () => {
    expect(
      checkAnswersAfterWalSync([write(1), answer(1), sync(1)].join('\n'), WAL).violations,
    ).toHaveLength(1);
    const overlapping = [
      `2 10:00:00.000001 fdatasync(7<${WAL}> <unfinished ...>`,
      `1 10:00:00.000001 pwrite64(7<${WAL}>, "x", 1, 0) = 1`,
      '2 10:00:00.000002 <... fdatasync resumed>) = 0',
      answer(1),
    ];
    expect(checkAnswersAfterWalSync(overlapping.join('\n'), WAL).violations).toHaveLength(1);
  });

  it('ignores writes of other files, failed syncs, and answers on pipes', () => {
    const lines = [
      `1 10:00:00.000001 pwrite64(8</data/airlock.sqlite>, "x", 1, 0) = 1`,
      write(1),
      `1 10:00:00.000002 fdatasync(7<${WAL}>) = -1 EIO (Input/output error)`,
      `1 10:00:00.000003 write(1<pipe:[9]>, "HTTP/1.1 200 OK", 15) = 15`,
    ];
    const report = checkAnswersAfterWalSync(lines.join('\n'), WAL);
    expect(report).toEqual({ answers: 0, walWrites: 1, walSyncs: 0, violations: [] });
  });
});
