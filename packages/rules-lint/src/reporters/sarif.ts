import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeDeclarationCode } from '../docs/declaration-codes.js';
import { docsUrlFor, RULES_LINT_HOME_URL } from '../docs/links.js';
import type { Finding, Severity } from '../findings.js';
import { LINT_RULES } from '../rules/catalog.js';
import type { LintRule } from '../rules/lint-rule.js';
import type { FileReport } from './json.js';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  info: 'note',
};

/** Version written in the SARIF tool driver. */
export const TOOL_VERSION = '0.0.0';

/** The base id artifact URIs are relative to. */
const SRCROOT = '%SRCROOT%';

/** Where SARIF locations are relative to. */
export interface SarifOptions {
  /** Absolute folder that `%SRCROOT%` stands for (default: the process's cwd). */
  readonly root?: string;
}

/**
 * `--format sarif`: a SARIF 2.1.0 log with one run. The driver lists every
 * lint rule (docs, help and a link) and every declaration code seen (with
 * its description); each finding is a result with its region (1-based
 * lines, UTF-16 columns), pointer and a partial fingerprint. Artifact URIs
 * are percent-encoded and relative to `%SRCROOT%`, declared in
 * `originalUriBaseIds`; a file outside the root gets an absolute `file:` URI.
 */
export function renderSarif(reports: readonly FileReport[], options: SarifOptions = {}): string {
  const root = resolve(options.root ?? process.cwd());
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
    ...LINT_RULES.map(lintRuleDescriptor),
    ...declarationCodes.map(declarationDescriptor),
  ];
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'rules-lint',
            version: TOOL_VERSION,
            informationUri: RULES_LINT_HOME_URL,
            rules,
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: folderUri(root) } },
        results: findings.map(({ file, finding }) =>
          result(artifactLocation(file, root), finding, ruleIndex.get(finding.code) ?? -1),
        ),
        invocations: [
          {
            executionSuccessful: reports.every((report) => !report.failure),
            toolExecutionNotifications: reports
              .filter((report) => report.failure)
              .map((report) => ({
                level: 'error',
                // The failure message already names the file; the location names it for tools.
                message: { text: report.failure!.message },
                locations: [
                  { physicalLocation: { artifactLocation: artifactLocation(report.file, root) } },
                ],
              })),
          },
        ],
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function lintRuleDescriptor(rule: LintRule) {
  const help = [rule.docs.description, rule.docs.semantics].filter(Boolean).join('\n\n');
  const url = docsUrlFor(rule.id);
  return {
    id: rule.id,
    name: rule.id,
    shortDescription: { text: rule.docs.summary },
    fullDescription: { text: rule.docs.description },
    helpUri: url,
    help: {
      text: `${help}\n\nReported:\n${rule.docs.bad}\n\nNot reported:\n${rule.docs.good}\n\n${url}`,
      markdown: `${help}\n\nReported:\n\n\`\`\`json\n${rule.docs.bad}\n\`\`\`\n\nNot reported:\n\n\`\`\`json\n${rule.docs.good}\n\`\`\`\n\n[Documentation](${url})`,
    },
    defaultConfiguration: { level: LEVEL[rule.severity] },
    properties: { category: rule.category, fix: rule.fixKind },
  };
}

function declarationDescriptor(code: string) {
  const description = describeDeclarationCode(code);
  const url = docsUrlFor(code);
  return {
    id: code,
    name: code,
    shortDescription: { text: description },
    fullDescription: { text: description },
    helpUri: url,
    help: {
      text: `${description}\n\n${url}`,
      markdown: `${description}\n\n[Documentation](${url})`,
    },
    defaultConfiguration: { level: 'error' },
    properties: {
      category: code.startsWith('example')
        ? 'examples'
        : code === 'unused-suppression'
          ? 'suppression'
          : 'declaration',
    },
  };
}

/** A file URI for a folder, with the trailing slash SARIF base ids need. */
function folderUri(folder: string): string {
  const uri = pathToFileURL(folder).href;
  return uri.endsWith('/') ? uri : `${uri}/`;
}

/** The artifact location of a file as shown: relative to the root when inside it, else absolute. */
function artifactLocation(file: string, root: string): { uri: string; uriBaseId?: string } {
  const absolute = resolve(root, file);
  const inside = relative(root, absolute);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
    return { uri: pathToFileURL(absolute).href };
  return {
    uri: inside.split(sep).map(encodeURIComponent).join('/'),
    uriBaseId: SRCROOT,
  };
}

function result(
  location: { uri: string; uriBaseId?: string },
  finding: Finding,
  ruleIndex: number,
) {
  const { line, column, endLine, endColumn } = finding.location;
  return {
    ruleId: finding.code,
    ...(ruleIndex >= 0 ? { ruleIndex } : {}),
    level: LEVEL[finding.severity],
    message: { text: finding.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: location,
          region: { startLine: line, startColumn: column, endLine, endColumn },
        },
        logicalLocations: [{ fullyQualifiedName: finding.pointer || '/', kind: 'member' }],
      },
    ],
    ...(finding.fingerprint
      ? { partialFingerprints: { 'rulesLint/v1': finding.fingerprint } }
      : {}),
    properties: { pointer: finding.pointer, source: finding.source },
  };
}
