import type { Finding, Severity } from '../findings.js';
import { LINT_RULES } from '../rules/catalog.js';
import type { FileReport } from './json.js';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  info: 'note',
};

/** Version written in the SARIF tool driver. */
export const TOOL_VERSION = '0.0.0';

/**
 * `--format sarif`: a SARIF 2.1.0 log with one run. The driver lists every
 * lint rule (with its docs) and every declaration code seen; each finding is
 * a result with its region (1-based lines, UTF-16 columns) and pointer.
 */
export function renderSarif(reports: readonly FileReport[]): string {
  const findings = reports.flatMap((report) =>
    report.findings.map((finding) => ({ file: report.file, finding })),
  );
  const declarationCodes = [
    ...new Set(
      findings
        .filter(({ finding }) => finding.source !== 'lint')
        .map(({ finding }) => finding.code),
    ),
  ].sort();
  const rules = [
    ...LINT_RULES.map((rule) => ({
      id: rule.id,
      name: rule.id,
      shortDescription: { text: rule.docs.summary },
      fullDescription: { text: rule.docs.description },
      defaultConfiguration: { level: LEVEL[rule.severity] },
      properties: { category: rule.category, fix: rule.fixKind },
    })),
    ...declarationCodes.map((code) => ({
      id: code,
      name: code,
      shortDescription: {
        text: code.startsWith('example')
          ? `An example of the file does not hold: ${code}.`
          : `The kernel refuses the declaration: ${code}.`,
      },
      defaultConfiguration: { level: 'error' },
    })),
  ];
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'rules-lint', version: TOOL_VERSION, rules } },
        results: findings.map(({ file, finding }) =>
          result(
            file,
            finding,
            rules.findIndex((rule) => rule.id === finding.code),
          ),
        ),
        invocations: [
          {
            executionSuccessful: reports.every((report) => !report.failure),
            toolExecutionNotifications: reports
              .filter((report) => report.failure)
              .map((report) => ({
                level: 'error',
                message: { text: `${report.file}: ${report.failure!.message}` },
              })),
          },
        ],
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function result(file: string, finding: Finding, ruleIndex: number) {
  const { line, column, endLine, endColumn } = finding.location;
  return {
    ruleId: finding.code,
    ruleIndex,
    level: LEVEL[finding.severity],
    message: { text: finding.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: file.split('\\').join('/') },
          region: { startLine: line, startColumn: column, endLine, endColumn },
        },
        logicalLocations: [{ fullyQualifiedName: finding.pointer || '/', kind: 'member' }],
      },
    ],
    properties: { pointer: finding.pointer, source: finding.source },
  };
}
