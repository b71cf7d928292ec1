import type { Finding, Severity } from '../findings.js';
import { type SourceDocument, spanLocation } from './document.js';
import { DUPLICATE_KEY, duplicateKeys } from './duplicate-keys.js';

/**
 * One `duplicate-key` finding (an error unless the config says otherwise)
 * per key written again in the same object, at the later key. The kernel
 * refuses such a request body outright, and a tool that parses the file
 * first keeps the later value, so a file cannot silence it with a comment.
 */
export function duplicateKeyFindings(
  document: SourceDocument,
  setting: Severity | 'off' | undefined,
): Finding[] {
  if (setting === 'off') return [];
  return duplicateKeys(document.root).map((duplicate) => {
    const kept = duplicate.kept
      ? document.text.slice(duplicate.kept.offset, duplicate.kept.offset + duplicate.kept.length)
      : '';
    const shown = kept.length > 60 ? `${kept.slice(0, 57)}...` : kept;
    return {
      code: DUPLICATE_KEY,
      source: 'lint',
      severity: setting ?? 'error',
      message:
        `key ${JSON.stringify(duplicate.key)} is written twice in this object: a reviewer reads the first value, ` +
        `JSON.parse keeps this later one${shown ? ` (${shown})` : ''}, and the kernel refuses the file sent as written ` +
        '(invalid_json, duplicate_key). Keep one.',
      pointer: duplicate.pointer,
      location: spanLocation(document.lines, duplicate.node.offset, duplicate.node.length),
    };
  });
}
