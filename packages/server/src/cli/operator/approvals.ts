import type { ApprovalPolicy, ApprovalPolicyView } from '@airlock/core';
import { unknownVerbLine } from '@airlock/core/command-line';
import {
  CONNECTION_HELP,
  connectionFrom,
  OperatorError,
  parseOperatorArgs,
  print,
  UsageError,
} from './connection.js';
import { readJsonFile } from './json-file.js';
import { parseWholeNumber } from './paging.js';
import { warnUnreachableRules } from './unreachable-rules.js';

/** `airlock approvals --help` */
export const APPROVALS_HELP = `Usage:
  airlock approvals show
  airlock approvals set --file <policy.json> [--version <version-you-read>]

Reads and replaces the workspace's approval policy: which members (credential
ids, or group:NAME of the policy's groups) may approve which calls (by tool
glob, action tag, rule set, application), how many distinct approvals each
call needs, and no_self_approval. The file is checked here first, then by the
kernel, which reports every problem with its JSON pointer and changes nothing.
With --version the replace is refused (stale_digest) if the policy changed
since you read that version. See docs/approval-policies.md. show needs a
member credential; set needs an admin's (admin_required otherwise).

${CONNECTION_HELP}`;

/** What applies in a workspace no policy was ever set for (version 0), and how to set one. */
function noPolicyLines(repeatFlags: readonly string[]): string[] {
  const set = ['airlock approvals set', ...repeatFlags, '--file <policy.json> --version 0'];
  return [
    'no approval policy is set: every member may approve or deny every parked call,',
    'one approval runs it, and a member may approve the calls of runs they started',
    `set one with: ${set.join(' ')} (docs/approval-policies.md)`,
  ];
}

function describePolicy(view: ApprovalPolicyView, repeatFlags: readonly string[]): string[] {
  if (view.version === 0) return noPolicyLines(repeatFlags);
  // The kernel stores only a policy that passed core's validation.
  const policy = view.policy as ApprovalPolicy;
  const groups = Object.keys(policy.groups ?? {});
  return [
    `approval policy version ${view.version} (by ${view.updated_by ?? 'nobody'})`,
    `  ${groups.length} group(s), ${(policy.rules ?? []).length} rule(s), no_self_approval ${policy.no_self_approval === true}`,
  ];
}

/** The waiting calls a replaced policy approved at once (their approvals already meet it). */
function approvedLines(
  calls: readonly { run_id: string; task_key: string }[] | undefined,
): string[] {
  if (!calls || calls.length === 0) return [];
  const count = `${calls.length} waiting call${calls.length === 1 ? '' : 's'}`;
  return [
    `approved ${count} this policy already meets:`,
    ...calls.map((call) => `  ${call.run_id} ${call.task_key}`),
  ];
}

async function readPolicyFile(path: unknown): Promise<unknown> {
  // A blank path (an unset shell variable) is a missing one, not a file named ''.
  if (typeof path !== 'string' || path.trim() === '') {
    throw new UsageError('airlock approvals set: give --file <policy.json>');
  }
  const document = readJsonFile(path, 'airlock approvals set');
  const { validateApprovalPolicy } = await import('@airlock/core');
  const checked = validateApprovalPolicy(document);
  if (!checked.ok) {
    const lines = checked.problems.map((p) => `  ${p.pointer || '/'}: ${p.message} (${p.code})`);
    throw new OperatorError(`airlock approvals set: ${path} is not a valid policy:`, 1, lines);
  }
  return document;
}

/** Runs `airlock approvals ...`; returns the exit code. */
export async function approvals(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'approvals', {
    show: {},
    set: { flags: { file: { type: 'string' }, version: { type: 'string' } } },
  });
  const [verb] = positionals;
  if (values.help || !verb) {
    process.stdout.write(APPROVALS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  switch (verb) {
    case 'show': {
      const body = await connection.call('approvalPolicy.get', {
        workspace_id: connection.workspace,
      });
      print(connection, body, () => [
        ...describePolicy(body, connection.repeatFlags),
        // One line each: a line holding a newline would be printed escaped, as one line. No
        // policy has no document to show: the empty `{}` the kernel answers would read as one.
        ...(body.version === 0 ? [] : JSON.stringify(body.policy, null, 2).split('\n')),
      ]);
      return 0;
    }
    case 'set': {
      // The flags first: a usage error is named before the file is read.
      const version = parseWholeNumber(values.version, {
        command: 'airlock approvals set',
        flag: '--version',
        what: 'the policy version `approvals show` printed (a whole number)',
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
      });
      const policy = await readPolicyFile(values.file);
      const body = await connection.call('approvalPolicy.replace', {
        workspace_id: connection.workspace,
        policy,
        ...(version === undefined ? {} : { expected_version: version }),
      });
      // On stderr, as a revoke's: stdout stays the policy (or the JSON answer, which holds them).
      warnUnreachableRules(body.unreachable_approval_rules);
      print(connection, body, () => [
        ...describePolicy(body, connection.repeatFlags),
        ...approvedLines(body.approved_calls),
      ]);
      return 0;
    }
    default:
      throw new UsageError(unknownVerbLine('approvals', verb, ['show', 'set']));
  }
}
