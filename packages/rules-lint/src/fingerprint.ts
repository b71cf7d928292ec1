import { createHash } from 'node:crypto';
import type { Finding } from './findings.js';

/**
 * Gives each finding a stable fingerprint: a hash of its code and the source
 * text it points at (white space collapsed), with a counter for repeats in
 * one file. It survives edits elsewhere in the file and rules moving, so a
 * baseline and code scanning keep recognising the same finding.
 */
export function withFingerprints(text: string, findings: readonly Finding[]): Finding[] {
  const seen = new Map<string, number>();
  return findings.map((finding) => {
    const snippet = text
      .slice(finding.location.offset, finding.location.offset + finding.location.length)
      .replace(/\s+/g, ' ');
    const hash = createHash('sha256')
      .update(`${finding.code}\n${snippet}`)
      .digest('hex')
      .slice(0, 16);
    const count = seen.get(hash) ?? 0;
    seen.set(hash, count + 1);
    return { ...finding, fingerprint: `${hash}:${count}` };
  });
}
