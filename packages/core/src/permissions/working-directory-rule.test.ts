import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell } from './fixtures/shell-decide.js';
import { exactCallRule } from './overlay-document.js';
import { validateOverlayDocument } from './validate-permissions.js';

/**
 * A rule's `working_directory` holds it to calls made in that directory: the
 * exact call a person remembered for /repo/src is not granted from
 * /repo/secrets, where its relative words name guarded files.
 */

const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };

/** The decision on `cat key` made in `cwd` (none: the project root) with `rules` first. */
const catKey = (rules: PermissionRule[], cwd: string | undefined) =>
  decideShell('cat key', rules, 'command', cwd).verdict;

describe('a rule held to a working directory', () => {
  const remembered = {
    verdict: 'allow' as const,
    ...exactCallRule('bash', { command: 'cat key' }, '/repo/src'),
  };

  it('keeps the directory the remembered call was made in', () => {
    expect(remembered.working_directory).toBe('/repo/src');
    expect(exactCallRule('bash', {}, null)).not.toHaveProperty('working_directory');
  });

  it('grants the call made there, said any way, and no call made elsewhere', () => {
    expect(catKey([remembered, denySecrets], '/repo/src')).toBe('allow');
    expect(catKey([remembered, denySecrets], '/repo/./src/')).toBe('allow');
    expect(catKey([remembered, denySecrets], '/repo/lib/../src')).toBe('allow');
    // A shell word naming a guarded path asks (the deny reads what the words may reach).
    expect(catKey([remembered, denySecrets], '/repo/secrets')).toBe('ask');
    const askBash: PermissionRule = { verdict: 'ask', tools: ['bash'] };
    expect(catKey([remembered, askBash], '/repo/docs')).toBe('ask');
    // No directory said: the call is made in the project root, which is not /repo/src.
    expect(catKey([remembered, askBash], undefined)).toBe('ask');
  });

  it('a call with no directory said is made in the project root', () => {
    const atRoot = { ...remembered, working_directory: '/repo' };
    const askBash: PermissionRule = { verdict: 'ask', tools: ['bash'] };
    expect(catKey([atRoot, askBash], undefined)).toBe('allow');
    expect(catKey([atRoot, askBash], '/repo/')).toBe('allow');
    expect(catKey([atRoot, askBash], '/repo/src')).toBe('ask');
  });

  it('places a .. at the root where the system does: /../repo/src is /repo/src', () => {
    // As written the rule never held (its directory kept its /..), so its deny bound nowhere.
    const denyThere: PermissionRule = {
      verdict: 'deny',
      tools: ['bash'],
      working_directory: '/../repo/src',
    };
    const allow: PermissionRule = { verdict: 'allow' };
    expect(catKey([denyThere, allow], '/repo/src')).toBe('deny');
    expect(catKey([denyThere, allow], '/../../repo/src')).toBe('deny');
    expect(catKey([denyThere, allow], '/repo')).toBe('allow');
  });

  it('holds a deny to its directory too', () => {
    const denyThere: PermissionRule = {
      verdict: 'deny',
      tools: ['bash'],
      working_directory: '/repo/ops',
    };
    expect(catKey([denyThere, { verdict: 'allow' }], '/repo/ops')).toBe('deny');
    expect(catKey([denyThere, { verdict: 'allow' }], '/repo/src')).toBe('allow');
  });

  it('is refused when it is not absolute or is too long', () => {
    const document = (working_directory: string) => [
      { ruleSetId: 'autonomous', rules: [{ verdict: 'allow', working_directory }] },
    ];
    expect(validateOverlayDocument(document('/repo/src'), 'conversation').ok).toBe(true);
    const relative = validateOverlayDocument(document('src'), 'conversation');
    expect(relative.ok).toBe(false);
    if (!relative.ok) expect(relative.problems[0]?.pointer).toBe('/0/rules/0/working_directory');
    expect(validateOverlayDocument(document(`/${'a'.repeat(4096)}`), 'conversation').ok).toBe(
      false,
    );
  });
});
