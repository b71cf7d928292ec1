import type { Format } from '../cli/arguments.js';
import type { FileReport } from './json.js';
import { renderJson } from './json.js';
import { type PrettyFileReport, renderPretty } from './pretty.js';
import { renderSarif } from './sarif.js';

/** Renders reports in the chosen format. */
export function renderReports(format: Format, reports: readonly PrettyFileReport[]): string {
  if (format === 'json') return renderJson(reports.map(stripLines));
  if (format === 'sarif') return renderSarif(reports);
  return renderPretty(reports);
}

function stripLines({ file, findings, failure }: PrettyFileReport): FileReport {
  return failure ? { file, findings, failure } : { file, findings };
}
