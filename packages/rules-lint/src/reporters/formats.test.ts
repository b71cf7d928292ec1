import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROBLEM_CODES } from '@airlock/core';
import AjvDraft04 from 'ajv-draft-04';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECLARATION_CODE_DESCRIPTIONS } from '../docs/declaration-codes.js';
import { LINT_RULES } from '../rules/catalog.js';
import { runCaptured } from '../testing/capture.js';

const require = createRequire(import.meta.url);
// The SARIF 2.1.0 JSON Schema as Microsoft ships it in @microsoft/jest-sarif (draft-04).
const sarifSchema = JSON.parse(
  readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'),
);
// A CommonJS module: its `default` property is the class.
const Ajv = AjvDraft04.default;
const sarifAjv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
// The formats the schema names, checked (Ajv knows none of them by itself and would skip them).
sarifAjv.addFormat('uri', (value: string) => URL.canParse(value));
sarifAjv.addFormat('uri-reference', (value: string) => URL.canParse(value, 'file:///base/'));
sarifAjv.addFormat(
  'date-time',
  (value: string) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) &&
    !Number.isNaN(Date.parse(value)),
);
const validateSarif = sarifAjv.compile(sarifSchema);

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-formats-'));
const WARN_AND_ERROR =
  '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets"},\n  {"tool": "bash", "verdict": "maybe"}\n]\n';

beforeAll(() => {
  mkdirSync(join(dir, 'sub dir'));
  writeFileSync(join(dir, 'a b.json'), WARN_AND_ERROR);
  writeFileSync(join(dir, 'c#d.json'), '[{"tool": "bash", "verdict": "deny"}]');
  writeFileSync(join(dir, 'sub dir/e%f.json'), WARN_AND_ERROR);
  writeFileSync(join(dir, 'broken.json'), '[');
  writeFileSync(join(dir, 'clean.json'), '[{"tool": "bash", "verdict": "allow"}]');
});

describe('--format sarif', () => {
  it('is valid SARIF 2.1.0, with percent-encoded URIs relative to %SRCROOT%', async () => {
    const run = await runCaptured(
      ['check', '--format', 'sarif', 'a b.json', 'c#d.json', 'sub dir/e%f.json', 'broken.json'],
      dir,
    );
    const log = JSON.parse(run.stdout);
    expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
    // The validator does refuse a broken log (a driver needs a name).
    expect(validateSarif({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })).toBe(false);
    // ...and a URI that is not one (the formats are checked, not skipped).
    const badBase = structuredClone(log);
    badBase.runs[0].originalUriBaseIds['%SRCROOT%'].uri = 'http://[not a host/';
    expect(validateSarif(badBase)).toBe(false);
    const sarifRun = log.runs[0];
    expect(sarifRun.originalUriBaseIds['%SRCROOT%'].uri).toBe(`file://${dir}/`);
    const uris = sarifRun.results.map(
      (result: {
        locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId: string } } }[];
      }) => result.locations[0]!.physicalLocation.artifactLocation,
    );
    expect(new Set(uris.map((location: { uri: string }) => location.uri))).toEqual(
      new Set(['a%20b.json', 'c%23d.json', 'sub%20dir/e%25f.json']),
    );
    expect(
      uris.every((location: { uriBaseId: string }) => location.uriBaseId === '%SRCROOT%'),
    ).toBe(true);
    // Each URI resolves back to its file against the base.
    for (const location of uris as { uri: string }[]) {
      const path = decodeURIComponent(
        new URL(location.uri, sarifRun.originalUriBaseIds['%SRCROOT%'].uri).pathname,
      );
      expect(readFileSync(path, 'utf8').length).toBeGreaterThan(0);
    }
  });

  it('gives every rule help and a link, real descriptions for declaration codes, and fingerprints', async () => {
    const run = await runCaptured(['check', '--format', 'sarif', 'a b.json', 'broken.json'], dir);
    const sarifRun = JSON.parse(run.stdout).runs[0];
    const driver = sarifRun.tool.driver;
    expect(driver.informationUri).toMatch(/^https:\/\//);
    for (const rule of driver.rules) {
      expect(rule.helpUri, rule.id).toMatch(/^https:\/\/.+#/);
      expect(rule.help.text.length, rule.id).toBeGreaterThan(20);
      expect(rule.help.markdown.length, rule.id).toBeGreaterThan(20);
    }
    const verdict = driver.rules.find((rule: { id: string }) => rule.id === 'verdict_invalid');
    expect(verdict.shortDescription.text).toBe(DECLARATION_CODE_DESCRIPTIONS.verdict_invalid);
    for (const result of sarifRun.results)
      expect(result.partialFingerprints['rulesLint/v1']).toMatch(/^[0-9a-f]{16}:\d+$/);
    const notifications = sarifRun.invocations[0].toolExecutionNotifications;
    expect(notifications).toHaveLength(1);
    expect(notifications[0].message.text.split('broken.json')).toHaveLength(2);
    expect(notifications[0].locations[0].physicalLocation.artifactLocation.uri).toBe('broken.json');
  });

  it('has a description for every declaration code of core', () => {
    for (const code of PROBLEM_CODES)
      expect(DECLARATION_CODE_DESCRIPTIONS[code], code).toBeTruthy();
    expect(LINT_RULES.length).toBeGreaterThan(10);
  });
});

describe('--format github', () => {
  it('prints one workflow command per finding, escaped', async () => {
    const run = await runCaptured(
      ['check', '--format', 'github', 'a b.json', 'c#d.json', 'broken.json'],
      dir,
    );
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^::warning file=a b\.json,line=2,col=46,endLine=2,endColumn=52,title=rules-lint fragment-without-star::match "\.env" looks like/,
    );
    expect(lines[1]).toMatch(
      /^::error file=a b\.json,line=3,col=\d+,.*title=rules-lint verdict_invalid::/,
    );
    expect(lines[2]).toMatch(
      /^::notice file=c#d\.json,line=1,.*title=rules-lint deny-without-reason::/,
    );
    expect(lines[3]).toMatch(
      /^::error file=broken\.json,line=1,col=2,title=rules-lint::broken\.json:1:2/,
    );
    expect(lines).toHaveLength(4);
  });
});

describe('--format junit and checkstyle', () => {
  it('junit: a suite per file, failures for errors and warnings, a passing case for a clean file', async () => {
    const run = await runCaptured(
      ['check', '--format', 'junit', 'a b.json', 'clean.json', 'broken.json'],
      dir,
    );
    expect(run.stdout).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="rules-lint" tests="4" failures="2" errors="1">/,
    );
    expect(run.stdout).toContain('<testsuite name="a b.json" tests="2" failures="2" errors="0">');
    expect(run.stdout).toContain(
      '<failure type="warning" message="match &quot;.env&quot; looks like',
    );
    expect(run.stdout).toContain(
      '<testcase classname="rules-lint" name="clean.json" file="clean.json"/>',
    );
    expect(run.stdout).toContain('<error message="broken.json:1:2:');
  });

  it('checkstyle: a file element per file and an error element per finding', async () => {
    const run = await runCaptured(
      ['check', '--format', 'checkstyle', 'a b.json', 'clean.json', 'broken.json'],
      dir,
    );
    expect(run.stdout).toContain('<checkstyle version="4.3">');
    expect(run.stdout).toMatch(
      /<file name="a b\.json">\n {4}<error line="2" column="46" severity="warning" message="match &quot;\.env&quot;[^"]*" source="rules-lint\.fragment-without-star"\/>/,
    );
    expect(run.stdout).toContain('source="rules-lint.verdict_invalid"');
    expect(run.stdout).toContain('<file name="clean.json"/>');
    expect(run.stdout).toMatch(
      /<file name="broken\.json">\n {4}<error line="1" column="2" severity="error" message="broken\.json:1:2: /,
    );
  });
});
