import { join } from 'node:path';
import type { OverlayScope, OverlayView } from '@airlock/core';
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

/** The repository file a project overlay document is kept in, under review. */
export const PROJECT_OVERLAY_FILE = '.airlock/permissions.json';

/** `airlock overlays --help` */
export const OVERLAYS_HELP = `Usage:
  airlock overlays show <scope> <owner>
  airlock overlays replace <scope> <owner> --file <path> --digest <digest-you-read>
  airlock overlays trust <agent-application-id> --digest <digest>
  airlock overlays load <agent-application-id> [--repo <dir> | --file <path>] [--trust]

Reads, replaces and trusts permission overlay documents (groups of
[{ruleSetId, rules}]). <scope> is user, project or conversation; <owner> is
"me" for your own user document, an agent application id for a project, a
conversation id for a conversation. A replace names the digest it read and
is refused (stale_digest) if the document changed since. A project document
applies only once a member trusts its exact digest. "load" replaces a
project document with the repository's ${PROJECT_OVERLAY_FILE} (in --repo,
default the current directory; or --file) and, with --trust, trusts what it
wrote. Needs a member credential.

${CONNECTION_HELP}`;

function describeOverlay(view: OverlayView): string[] {
  const trust =
    view.scope === 'project'
      ? view.active
        ? 'trusted (active)'
        : view.trusted_digest
          ? 'changed since trusted (inactive)'
          : 'not trusted (inactive)'
      : 'active';
  return [
    `${view.scope} overlay of ${view.owner_id}: ${trust}`,
    `digest ${view.digest}`,
    ...(view.groups.length === 0
      ? ['no groups']
      : view.groups.map((group) => `  ${group.ruleSetId}: ${group.rules.length} rule(s)`)),
  ];
}

async function scopeOf(value: string | undefined): Promise<OverlayScope> {
  // A missing scope is told before the contracts' schemas load.
  const parsed =
    value === undefined
      ? undefined
      : (await import('@airlock/core')).OverlayScopeSchema.safeParse(value);
  if (!parsed?.success) {
    throw new UsageError('airlock overlays: <scope> is user, project or conversation');
  }
  return parsed.data;
}

/**
 * Reads and checks an overlay document file: an array of groups, or an
 * object with a `groups` array. Every problem is reported with its pointer.
 */
export async function readOverlayFile(path: string, scope: OverlayScope): Promise<unknown[]> {
  const parsed = readJsonFile(path, 'airlock overlays');
  const groups =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as { groups?: unknown }).groups
      : parsed;
  const { validateOverlayDocument } = await import('@airlock/core');
  const validated = validateOverlayDocument(groups, scope);
  if (!validated.ok) {
    const lines = validated.problems.map((p) => `  ${p.pointer || '/'}: ${p.message} (${p.code})`);
    // Exit 1, as for a policy file or the kernel's own refusal: the command line was right.
    throw new OperatorError(`airlock overlays: ${path} is not a valid overlay document:`, 1, lines);
  }
  return validated.value;
}

/**
 * A value the command cannot go without; blank counts as missing (an unset shell variable).
 * @throws UsageError (exit 2) naming what to give.
 */
function need(value: string | boolean | undefined, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`airlock overlays: give ${what}`);
  }
  return value;
}

/** Runs `airlock overlays ...`; returns the exit code. */
export async function overlays(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'overlays', {
    show: { operands: ['<scope>', '<owner>'] },
    replace: {
      operands: ['<scope>', '<owner>'],
      flags: { file: { type: 'string' }, digest: { type: 'string' } },
    },
    trust: { operands: ['<agent-application-id>'], flags: { digest: { type: 'string' } } },
    load: {
      operands: ['<agent-application-id>'],
      flags: { repo: { type: 'string' }, file: { type: 'string' }, trust: { type: 'boolean' } },
    },
  });
  const [verb, first, second] = positionals;
  if (values.help || !verb) {
    process.stdout.write(OVERLAYS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  const show = (view: OverlayView) => print(connection, view, () => describeOverlay(view));
  const workspace_id = connection.workspace;
  switch (verb) {
    case 'show': {
      const scope = await scopeOf(first);
      const owner_id = need(second, '<owner>');
      show(await connection.call('overlays.get', { workspace_id, scope, owner_id }));
      return 0;
    }
    case 'replace': {
      const scope = await scopeOf(first);
      // The command line first: a usage error is named before the file is read and judged.
      const owner_id = need(second, '<owner>');
      const expected_digest = need(values.digest, '--digest <digest-you-read>');
      const groups = await readOverlayFile(need(values.file, '--file <path>'), scope);
      show(
        await connection.call('overlays.replace', {
          workspace_id,
          scope,
          owner_id,
          expected_digest,
          groups,
        }),
      );
      return 0;
    }
    case 'trust': {
      const owner_id = need(first, '<agent-application-id>');
      const digest = need(values.digest, '--digest <digest>');
      show(await connection.call('overlays.trust', { workspace_id, owner_id, digest }));
      return 0;
    }
    case 'load': {
      // Both would read --file and leave --repo unread: the operator says which one they mean.
      if (typeof values.file === 'string' && typeof values.repo === 'string') {
        throw new UsageError('airlock overlays load: give --repo <dir> or --file <path>, not both');
      }
      const owner_id = need(first, '<agent-application-id>');
      // An empty --repo would read the current directory's document: refused, as a blank --file.
      const file = values.file === undefined ? undefined : need(values.file, '--file <path>');
      const repo = values.repo === undefined ? '.' : need(values.repo, '--repo <dir>');
      const groups = await readOverlayFile(file ?? join(repo, PROJECT_OVERLAY_FILE), 'project');
      const project = { workspace_id, scope: 'project' as const, owner_id };
      const current = await connection.call('overlays.get', project);
      let view = await connection.call('overlays.replace', {
        ...project,
        expected_digest: current.digest,
        groups,
      });
      if (values.trust) {
        view = await connection.call('overlays.trust', {
          workspace_id,
          owner_id: project.owner_id,
          digest: view.digest,
        });
      }
      show(view);
      return 0;
    }
    default:
      throw new UsageError(unknownVerbLine('overlays', verb, ['show', 'replace', 'trust', 'load']));
  }
}
