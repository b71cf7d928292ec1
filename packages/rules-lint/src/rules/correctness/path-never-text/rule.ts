import { readSchemaPath } from '../../../catalog/schema-text.js';
import { toolsMatching } from '../../../catalog/tool-catalog.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** A path that, by the input schemas of every tool the rule names, never leads to text. */
export const pathNeverText: LintRule = {
  id: 'path-never-text',
  category: 'correctness',
  severity: 'error',
  fixKind: 'none',
  docs: {
    summary:
      "A path that, by the tools' input schemas, leads to an object, a number or nothing, so the rule never matches.",
    description:
      'The kernel reads text at a path only from a string, or from an array of scalars joined by one space; anything else (absent, an object, a number alone) is no text, ' +
      'and a rule with a path never matches where there is no text. Under bypass that means the rule is silently ignored. When every tool the rule names has an input ' +
      'JSON Schema in `--tools` and each schema says the path leads to something other than text, the rule is dead. Point the path at a string field (for example `command`, ' +
      'or `edits.0.path`).',
    semantics:
      'The schema is walked segment by segment through `properties`, `items` and `prefixItems`; a missing property is "nothing" only when `additionalProperties` is false. ' +
      'A `$ref` outside the schema, `anyOf`/`oneOf`/`allOf`, or a schema without `type` make the answer unknown, and unknown is never reported.',
    tools: [
      {
        name: 'write',
        input_schema: {
          type: 'object',
          properties: { file: { type: 'object', properties: { path: { type: 'string' } } } },
        },
      },
    ],
    bad: '[{"tool": "write", "path": "file", "match": "*.env", "verdict": "deny", "reason": "secrets stay local"}]',
    good: '[{"tool": "write", "path": "file.path", "match": "*.env", "verdict": "deny", "reason": "secrets stay local"}]',
  },
  check({ rules, tools }) {
    if (!tools || tools.schemas.size === 0) return [];
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.path === null) continue;
      const named = [...new Set(entry.alternatives.flatMap((glob) => toolsMatching(tools, glob)))];
      if (named.length === 0 || !named.every((name) => tools.schemas.has(name))) continue;
      const readings = named.map((name) => readSchemaPath(tools.schemas.get(name), entry.path!));
      if (!readings.every((reading) => reading.verdict === 'never')) continue;
      const found = [...new Set(readings.map((reading) => reading.found ?? 'nothing'))].join(
        ' or ',
      );
      reports.push({
        pointer: `${entry.pointer}/path`,
        message:
          `path "${entry.path.join('.')}" never holds text for ${named.join(', ')}: the input schema puts ${found} there, ` +
          'and a rule with a path never matches without text. Point the path at a string or an array of scalars.',
      });
    }
    return reports;
  },
};
