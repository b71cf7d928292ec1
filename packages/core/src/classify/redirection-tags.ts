import type { LexedSegment } from './shell-lexer.js';
import { redirectsNowhere } from './streams.js';
import type { ActionTag } from './tags.js';
import type { WalkTargets } from './walk.js';

const WRITE_OPERATORS = new Set(['>', '>>', '&>', '&>>', '>|', '<>', '>&']);
/** Disks and partitions: writing to one overwrites whatever it held. */
const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|r?disk|md|dm-|mapper\/|loop)/;

/**
 * The tags a command's redirections give it (a file written, read, a disk
 * overwritten, a connection opened), recording the files they name in
 * `targets` when the walk lists them.
 */
export function redirectionTags(segment: LexedSegment, targets?: WalkTargets): Set<ActionTag> {
  const tags = new Set<ActionTag>();
  for (const { operator, target } of segment.redirections) {
    // bash opens a connection for `/dev/tcp/HOST/PORT` and `/dev/udp/...`: no file.
    if (/^\/dev\/(tcp|udp)\//.test(target)) tags.add('network');
    else if (WRITE_OPERATORS.has(operator) && !redirectsNowhere(target)) {
      targets?.files.push(target);
      tags.add('write');
      if (BLOCK_DEVICE.test(target)) tags.add('destructive');
    } else if (operator === '<') {
      targets?.reads.push(target);
      tags.add('read');
    }
  }
  return tags;
}
