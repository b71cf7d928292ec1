import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Finding } from '../findings.js';
import { type CliIo, UsageError } from './cli-io.js';
import { writeContained } from './contained-path.js';
import { requireDocument } from './load.js';

/** One accepted finding of a baseline file. */
export interface BaselineEntry {
  readonly file: string;
  readonly code: string;
  readonly fingerprint: string;
  /** For people reading the file; not compared. */
  readonly message?: string;
}

/** A file's findings, as the baseline sees them. */
interface FileFindings {
  readonly file: string;
  readonly findings: readonly Finding[];
}

/**
 * Declaration errors never enter a baseline: the kernel refuses the file
 * whatever the linter accepts.
 */
function baselined(finding: Finding): boolean {
  return finding.source !== 'declaration' && finding.fingerprint !== undefined;
}

function keyOf(file: string, code: string, fingerprint: string): string {
  return JSON.stringify([file, code, fingerprint]);
}

/** Reads a baseline file. Throws UsageError when it is missing or malformed. */
export async function readBaseline(path: string, cwd: string): Promise<Set<string>> {
  if (!existsSync(resolve(cwd, path)))
    throw new UsageError(`--baseline ${path}: no such file (create it with --write-baseline)`);
  const document = await requireDocument(path, cwd);
  const value = document.value as { version?: unknown; findings?: unknown };
  if (
    value === null ||
    typeof value !== 'object' ||
    value.version !== 1 ||
    !Array.isArray(value.findings)
  )
    throw new UsageError(
      `--baseline ${path}: not a rules-lint baseline ({"version": 1, "findings": [...]})`,
    );
  const keys = new Set<string>();
  for (const entry of value.findings as Partial<BaselineEntry>[]) {
    if (
      typeof entry?.file !== 'string' ||
      typeof entry.code !== 'string' ||
      typeof entry.fingerprint !== 'string'
    )
      throw new UsageError(`--baseline ${path}: each finding needs file, code and fingerprint`);
    keys.add(keyOf(entry.file, entry.code, entry.fingerprint));
  }
  return keys;
}

/** Drops the findings a baseline accepts; returns the rest and how many were dropped. */
export function subtractBaseline<T extends FileFindings>(
  reports: readonly T[],
  baseline: ReadonlySet<string>,
): { reports: T[]; accepted: number } {
  let accepted = 0;
  const kept = reports.map((report) => {
    const findings = report.findings.filter((finding) => {
      if (
        !baselined(finding) ||
        !baseline.has(keyOf(report.file, finding.code, finding.fingerprint!))
      )
        return true;
      accepted += 1;
      return false;
    });
    return { ...report, findings };
  });
  return { reports: kept, accepted };
}

/** Writes every current finding (declaration errors aside) as the new baseline, never through a link. Throws UsageError. */
export async function writeBaseline(
  path: string,
  io: CliIo,
  reports: readonly FileFindings[],
): Promise<number> {
  const findings: BaselineEntry[] = reports.flatMap((report) =>
    report.findings.filter(baselined).map((finding) => ({
      file: report.file,
      code: finding.code,
      fingerprint: finding.fingerprint!,
      message: finding.message,
    })),
  );
  await writeContained(
    path,
    io.cwd,
    `${JSON.stringify({ version: 1, findings }, null, 2)}\n`,
    `--baseline ${path}`,
  );
  return findings.length;
}
