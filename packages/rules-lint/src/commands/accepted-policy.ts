import type { Policy } from '@airlock/core';
import type { RuleFile } from '../rule-file.js';
import type { SourceDocument } from '../source/document.js';
import { duplicateKeys } from '../source/duplicate-keys.js';

/**
 * The policy the kernel would run from a file sent as written, or undefined when it would
 * refuse the file: a declaration problem, or a key written twice (the kernel refuses such
 * text whatever the config says of `duplicate-key`). `eval` and `test` decide only under it.
 */
export function acceptedPolicy(document: SourceDocument, file: RuleFile): Policy | undefined {
  if (!file.policy || duplicateKeys(document.root).length > 0) return undefined;
  return file.policy;
}
