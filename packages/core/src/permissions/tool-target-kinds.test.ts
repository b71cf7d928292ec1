import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolManifest } from '../schemas/permissions.js';
import { ToolManifestSchema } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';

const object = { type: 'object' };
/** A profile's own tools, declared with each kind of target core reads. */
const MANIFEST: ToolManifest = [
  {
    name: 'list',
    input_schema: object,
    risk_traits: ['read'],
    targets: [
      { pointer: '/pattern', kind: 'path', names: 'listing', under: '/dir' },
      { pointer: '/dir', kind: 'path', names: 'listing', when_absent: 'working_directory' },
    ],
  },
  {
    name: 'search',
    input_schema: object,
    risk_traits: ['read'],
    targets: [{ pointer: '/dir', kind: 'path', names: 'directory', name_filter: '/only' }],
  },
  {
    name: 'patch',
    input_schema: object,
    risk_traits: ['write'],
    targets: [{ pointer: '/text', kind: 'path', names: 'patch' }],
  },
  {
    name: 'fetch',
    input_schema: object,
    risk_traits: ['network'],
    targets: [{ pointer: '/prompt', kind: 'url', names: 'text' }],
  },
];

function decide(toolName: string, input: unknown, rule: PermissionRule) {
  return evaluatePermissions({
    toolName,
    input,
    manifest: MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [rule] }] },
  }).verdict;
}

const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };
const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };

describe("a manifest's target kinds", () => {
  it('is a valid manifest', () => {
    expect(ToolManifestSchema.safeParse(MANIFEST).success).toBe(true);
  });

  it('reads a listing as names only, a directory as read through', () => {
    expect(decide('list', { dir: '.' }, denyEnv)).toBe('allow');
    expect(decide('list', {}, denyEnv)).toBe('allow');
    expect(decide('list', { dir: 'secrets' }, denySecrets)).toBe('deny');
    expect(decide('list', { dir: 'src', pattern: '../secrets/*' }, denySecrets)).toBe('deny');
    expect(decide('list', { dir: 'src', pattern: 'secrets/*' }, denySecrets)).toBe('allow');
    // Above the project root it prints names too: none is guarded, as `ls /` runs.
    expect(decide('list', { dir: '/' }, denyEnv)).toBe('allow');
    expect(decide('search', { dir: '.' }, denyEnv)).toBe('ask');
  });

  it('reads a name filter as limiting a search to what its glob names', () => {
    expect(decide('search', { dir: '.', only: '*.ts' }, denyEnv)).toBe('allow');
    expect(decide('search', { dir: '.', only: '*.ts' }, denySecrets)).toBe('ask');
    expect(decide('search', { dir: '.', only: ['*.ts', '*.env'] }, denyEnv)).toBe('ask');
  });

  it('reads the files a patch names', () => {
    const text = '*** Begin Patch\n*** Update File: a.ts\n*** Move to: .env\n*** End Patch';
    expect(decide('patch', { text }, denyEnv)).toBe('deny');
    expect(decide('patch', { text: text.replace('.env', 'b.ts') }, denyEnv)).toBe('allow');
  });

  it('reads the URLs in text', () => {
    const rule: PermissionRule = { verdict: 'deny', urls: ['https://internal.example.com/*'] };
    expect(decide('fetch', { prompt: 'see https://internal.example.com/a' }, rule)).toBe('deny');
    expect(decide('fetch', { prompt: 'see internal.example.com/a' }, rule)).toBe('allow');
  });
});
