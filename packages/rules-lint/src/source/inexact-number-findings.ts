import { inexactNumber, pointerFrom } from '@airlock/core';
import { getNodePath, type Node } from 'jsonc-parser';
import type { Finding } from '../findings.js';
import { type SourceDocument, spanLocation } from './document.js';

/** The code the kernel gives such a number: a problem of its `invalid_json` refusal. */
export const INEXACT_NUMBER = 'inexact_number';

/**
 * One error per number the file writes that a reader would not take as written (an integer
 * past 2^53, a number past the largest double), at the number. The kernel refuses the file
 * sent as written (`invalid_json`, `inexact_number`), and a tool that parses it first (an SDK,
 * a CLI) sends other digits without a word, so a comment cannot silence it.
 */
export function inexactNumberFindings(document: SourceDocument): Finding[] {
  const findings: Finding[] = [];
  const stack: Node[] = [document.root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.children) stack.push(...node.children);
    if (node.type !== 'number') continue;
    const token = document.text.slice(node.offset, node.offset + node.length);
    const problem = inexactNumber(token);
    if (problem === null) continue;
    findings.push({
      code: INEXACT_NUMBER,
      source: 'declaration',
      severity: 'error',
      message: `${problem}: the kernel refuses the file sent as written (invalid_json, inexact_number), and a tool that parses it first sends other digits`,
      pointer: pointerFrom(getNodePath(node)),
      location: spanLocation(document.lines, node.offset, node.length),
    });
  }
  return findings;
}
