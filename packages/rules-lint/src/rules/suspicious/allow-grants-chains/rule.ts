import { samePath } from '../../../analysis/rule-entry.js';
import { toolMatches } from '../../../analysis/sample-calls.js';
import {
  CHAINS,
  CHAINS_ADVICE,
  chainedText,
  grantsEveryLine,
  SHELL_FIELD,
} from '../../../analysis/shell-chains.js';
import { globShape, shapeMatches } from '../../../glob/glob-shape.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** An allow on a shell command line whose `*` also grants a second command after it. */
export const allowGrantsChains: LintRule = {
  id: 'allow-grants-chains',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'none',
  docs: {
    summary:
      'An allow rule on a shell command (`"match": "ls *"` on `command`) that also grants whatever a shell runs after it: `ls x; rm -rf x`.',
    description:
      'A glob reads the whole command line, not its first command: `ls *` matches `ls x; rm -rf x`, `ls $(curl … | sh)` and `ls > ~/.bashrc`, and a shell runs all of it. ' +
      'Unless a deny or ask rule catches what follows, the allow grants it. Add ask rules for the ways a line runs more than one command ' +
      '(`*;*`, `*&*`, `*|*`, `*$(*`, a backtick, `*<*`, `*>*`, a line break: ask wins over allow, so such a line waits for a person), ' +
      'or grant exact commands, or decide shell commands with an action contract, which reads each command of the line.',
    semantics:
      'Reported for an allow rule of origin `model` whose path ends in `command`, `cmd` or `script` and whose match has a `*` and something else (not `*` alone), when for some way of chaining ' +
      '(`;`, `&&`, `|`, a line break, `$(…)`, backticks, `<(…)`, `>`) the text made by putting `x` and a second command at its last `*` ' +
      'is matched by no deny or ask rule of origin `model` for the same tool (one without path, or with the same path). The message names every such way. ' +
      "The same check reads permission rules (overlay documents, custom rule set files and a profile's `custom_rule_sets`): an allow whose `argument_patterns` names a pointer ending in `command`, `cmd` or `script`, without `targets` or `urls`, " +
      'is reported when the line with a second command is decided by an allow, the first matching rule of its list deciding, unless a guardrail for the same rule set catches it.',
    bad: '[\n  {"tool": "bash", "path": "command", "match": "ls *", "verdict": "allow"},\n  {"tool": "bash", "path": "command", "match": "*rm -rf*", "verdict": "ask"}\n]',
    good: '[\n  {"tool": "bash", "path": "command", "match": "ls *", "verdict": "allow"},\n  {"tool": "bash", "path": "command", "match": "*;*", "verdict": "ask"},\n  {"tool": "bash", "path": "command", "match": "*&*", "verdict": "ask"},\n  {"tool": "bash", "path": "command", "match": "*|*", "verdict": "ask"},\n  {"tool": "bash", "path": "command", "match": "*\\n*", "verdict": "ask"},\n  {"tool": "bash", "path": "command", "match": "*$(*", "verdict": "ask"},\n  {"tool": "bash", "path": "command", "match": "*`*", "verdict": "ask"},\n  {"tool": "bash", "path": "command", "match": "*<*", "verdict": "ask"},\n  {"tool": "bash", "path": "command", "match": "*>*", "verdict": "ask"}\n]',
  },
  check({ rules }) {
    const stops = rules.filter(
      (entry) => entry.origin === 'model' && (entry.verdict === 'deny' || entry.verdict === 'ask'),
    );
    const reports: LintReport[] = [];
    for (const allow of rules) {
      if (allow.verdict !== 'allow' || allow.origin !== 'model') continue;
      const field = allow.path?.at(-1);
      if (allow.match === undefined || field === undefined || !SHELL_FIELD.test(field)) continue;
      if (grantsEveryLine(allow.match)) continue;
      const name = globShape(allow.alternatives[0] ?? '').samples[0];
      if (name === undefined) continue;
      const granted = CHAINS.flatMap((chain) => {
        const text = chainedText(allow.match!, chain.after);
        if (text === null || !shapeMatches(globShape(allow.match!), text)) return [];
        const stopped = stops.some(
          (stop) =>
            toolMatches(stop, name) &&
            (stop.path === null ||
              (samePath(stop, allow) && shapeMatches(globShape(stop.match ?? '*'), text))),
        );
        return stopped ? [] : [{ ...chain, text }];
      });
      const first = granted[0];
      if (first === undefined) continue;
      reports.push({
        pointer: `${allow.pointer}/match`,
        message: `allow rule ${allow.index} also grants ${JSON.stringify(first.text)}: a glob reads the whole command line, and no deny or ask rule catches a second command after ${granted.map((chain) => chain.by).join(', ')}. ${CHAINS_ADVICE}`,
      });
    }
    return reports;
  },
};
