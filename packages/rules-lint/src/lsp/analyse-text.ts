import type { ToolCatalog } from '../catalog/tool-catalog.js';
import { fileLinter, withCustomRuleSets } from '../check-file.js';
import type { LoadedConfig } from '../config/find-config.js';
import type { Finding, SourceLocation } from '../findings.js';
import { parseDocument } from '../source/document.js';

/** One document's analysis as a worker thread receives it: plain data only. */
export interface AnalysisJob {
  readonly fileName: string;
  readonly text: string;
  readonly config: LoadedConfig;
  readonly tools: ToolCatalog | undefined;
}

/** A document's findings, or why its text is not JSON and where: plain data, as a thread sends it. */
export type AnalysisOutcome =
  | { readonly ok: true; readonly findings: readonly Finding[] }
  | { readonly ok: false; readonly message: string; readonly location: SourceLocation };

/**
 * Parses and lints an editor document's text exactly as `check` lints its
 * file: the whole costly part, so that it can run off the server's thread.
 * Never throws.
 */
export function analyseText(job: AnalysisJob): AnalysisOutcome {
  const parsed = parseDocument(job.fileName, job.text);
  if (!parsed.ok) return { ok: false, message: parsed.message, location: parsed.location };
  const source = parsed.document;
  const findings = withCustomRuleSets(
    source,
    fileLinter(source, { config: job.config, tools: job.tools })(source),
  );
  return { ok: true, findings };
}
