import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyShellCommand } from '../classify/action-tags.js';
import { readCorpus } from '../classify/corpus/read-corpus.js';
import { GIT_VALUED } from '../classify/git-tags.js';
import { type ClassifiedSegment, classifyShellSegments } from '../classify/segment-walker.js';
import { ACTION_TAGS } from '../classify/tags.js';
import { wordsOfSegment } from '../classify/walk.js';
import { CONTRACT_LISTS, type ContractList, LIST_PATHS } from './contract-rules.js';
import { evaluateActionContract } from './evaluate-contract.js';
import { type ActionContract, validateActionContract } from './validate-contract.js';

const commands = readCorpus().map((entry) => entry.command);
const ruleText = fc.oneof(
  fc.constantFrom(...ACTION_TAGS).map((tag) => `action:${tag}`),
  fc.constantFrom('bash', 'deploy').map((name) => `tool:${name}`),
  fc.constantFrom('npm', 'git push', 'rm', 'sudo').map((text) => `command-prefix:${text}`),
);
const lists = fc.record(
  Object.fromEntries(
    CONTRACT_LISTS.map((list) => [list, fc.array(ruleText, { maxLength: 3 })]),
  ) as Record<ContractList, fc.Arbitrary<string[]>>,
);

function declare(rules: Record<ContractList, string[]>): ActionContract {
  const declaration: Record<string, Record<string, string[]>> = {};
  for (const list of CONTRACT_LISTS) {
    const [group, key] = LIST_PATHS[list];
    declaration[group] = { ...declaration[group], [key]: rules[list] };
  }
  const result = validateActionContract({ contract_version: 1, ...declaration });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value;
}

/** A git command's words from its verb on (`git -C x push` is `git push`), spaced; '' for any other. */
function withoutGitOptions(segment: ClassifiedSegment): string {
  const [first = '', ...args] = wordsOfSegment(segment);
  if (first.replace(/^.*\//, '').toLowerCase() !== 'git') return '';
  let index = 0;
  while (/^[-$]/.test(args[index] ?? ''))
    index += GIT_VALUED.has(args[index]!) || args[index] === '-c' ? 2 : 1;
  return ['git', ...args.slice(index)].join(' ').toLowerCase().replace(/\s+/g, ' ');
}

/** 004's precedence read directly: the first list with a matching rule decides. */
function referenceVerdict(
  rules: Record<ContractList, string[]>,
  toolName: string,
  command: string,
) {
  const tags: string[] = classifyShellCommand(command);
  const matches = (text: string) => {
    const [prefix, ...rest] = text.split(':');
    const value = rest.join(':').toLowerCase();
    if (prefix === 'action') return tags.includes(value);
    if (prefix === 'tool') return toolName.toLowerCase() === value;
    return command.trim().toLowerCase().startsWith(value);
  };
  // A rule that refuses or asks also reads each simple command the line runs, its program
  // named by a path (`/usr/bin/git push`, `/b?n/rm`) read by its own name too, and git's
  // options before its verb left out (`git -C dir push`).
  const blocks = (text: string) =>
    matches(text) ||
    (text.startsWith('command-prefix:') &&
      classifyShellSegments(command).some((segment) => {
        const wanted = text.slice('command-prefix:'.length).toLowerCase();
        const simple = segment.command.toLowerCase().replace(/\s+/g, ' ');
        const named = simple.replace(/^\S*\//, '');
        return (
          simple.startsWith(wanted) ||
          named.startsWith(wanted) ||
          withoutGitOptions(segment).startsWith(wanted)
        );
      }));
  for (const list of CONTRACT_LISTS) {
    if (rules[list].some(list === 'allowed' ? matches : blocks))
      return list === 'allowed' ? 'allow' : list === 'requires_user' ? 'ask' : 'deny';
  }
  return null;
}

describe('action contract properties', () => {
  it('decides as the first matching list in 004 order', () => {
    fc.assert(
      fc.property(
        lists,
        fc.constantFrom(...commands),
        fc.constantFrom('bash', 'deploy'),
        (rules, command, toolName) => {
          const decision = evaluateActionContract(declare(rules), {
            toolName,
            toolInput: { command },
          });
          expect(decision?.verdict ?? null).toBe(referenceVerdict(rules, toolName, command));
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 500) },
    );
  });

  it('adding allowed rules never lifts a refusal or an ask', () => {
    fc.assert(
      fc.property(
        lists,
        fc.array(ruleText, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...commands),
        (rules, extra, command) => {
          const call = { toolName: 'bash', toolInput: { command } };
          const before = evaluateActionContract(declare(rules), call)?.verdict;
          const after = evaluateActionContract(
            declare({ ...rules, allowed: [...extra, ...rules.allowed] }),
            call,
          )?.verdict;
          if (before === 'deny' || before === 'ask') expect(after).toBe(before);
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 500) },
    );
  });
});
