import type { Format } from '../cli/arguments.js';
import { renderCheckstyle } from './checkstyle.js';
import { renderGithub } from './github.js';
import type { FileReport } from './json.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { type PrettyFileReport, renderPretty } from './pretty.js';
import { renderSarif } from './sarif.js';

/** Renders reports in the chosen format; `root` is the folder SARIF URIs are relative to. */
export function renderReports(
  format: Format,
  reports: readonly PrettyFileReport[],
  options: { root?: string } = {},
): string {
  const plain = reports.map(stripLines);
  switch (format) {
    case 'json':
      return renderJson(plain);
    case 'sarif':
      return renderSarif(plain, options.root === undefined ? {} : { root: options.root });
    case 'github':
      return renderGithub(plain);
    case 'junit':
      return renderJunit(plain);
    case 'checkstyle':
      return renderCheckstyle(plain);
    default:
      return renderPretty(reports);
  }
}

function stripLines({ file, findings, failure }: PrettyFileReport): FileReport {
  return failure ? { file, findings, failure } : { file, findings };
}
