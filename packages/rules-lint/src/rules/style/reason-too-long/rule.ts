import { truncateUtf8 } from '@airlock/core';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** Bytes of a reason the kernel keeps in the denial's detail. */
export const REASON_MAX_BYTES = 256;

const encoder = new TextEncoder();

/** A reason longer than the kernel keeps. */
export const reasonTooLong: LintRule = {
  id: 'reason-too-long',
  category: 'style',
  severity: 'warning',
  fixKind: 'safe',
  docs: {
    summary:
      'A reason over 256 bytes of UTF-8: the kernel cuts it, so the model reads it truncated.',
    description:
      "A deny rule's reason becomes the refusal's `error.detail`, cut to its first 256 bytes on a character boundary. Whatever follows the cut never reaches the model, " +
      'and the cut may land mid-sentence. Say why and what to do instead within 256 bytes. The quick fix trims the reason exactly as the kernel does, so it is safe: ' +
      'every decision stays the same.',
    bad: `[{"tool": "bash", "path": "command", "match": "*sudo *", "verdict": "deny", "reason": "${'sudo is not available to this agent because it runs unattended; '.repeat(5)}"}]`,
    good: '[{"tool": "bash", "path": "command", "match": "*sudo *", "verdict": "deny", "reason": "sudo is not available to this agent; ask the operator to run it"}]',
  },
  check({ rules }) {
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.reason === undefined) continue;
      const bytes = encoder.encode(entry.reason).length;
      if (bytes <= REASON_MAX_BYTES) continue;
      const pointer = `${entry.pointer}/reason`;
      const kept = truncateUtf8(entry.reason, REASON_MAX_BYTES);
      reports.push({
        pointer,
        message:
          `reason of rule ${entry.index} is ${bytes} bytes; the kernel keeps the first ${REASON_MAX_BYTES}, so the model reads it cut after "...${kept.slice(-20)}". ` +
          'Shorten it to say why and what to do instead.',
        fix: {
          title: `Trim the reason to ${REASON_MAX_BYTES} bytes`,
          kind: 'safe',
          operations: [{ op: 'set', pointer, value: kept }],
        },
      });
    }
    return reports;
  },
};
