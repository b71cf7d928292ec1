import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolManifest } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { MAX_PATH_LENGTH, MAX_PATH_TARGETS } from './targets.js';

/*
 * Every path target is compared with every path rule: a call of 90,000 paths (about 1 MB of
 * JSON, the kernel's body limit) under 20 rules held the event loop for 16 seconds, and one
 * path of 900,000 characters for 5. A call naming more paths than MAX_PATH_TARGETS, or a path
 * longer than any a file system opens, is read as naming anywhere: a deny or an ask asks.
 */

const MANIFEST: ToolManifest = [
  {
    name: 'ReadMany',
    input_schema: { type: 'object' },
    risk_traits: ['read'],
    targets: [
      { pointer: '/paths', kind: 'path', names: 'file' },
      { pointer: '/url', kind: 'url' },
    ],
  },
  {
    name: 'Glob',
    input_schema: { type: 'object' },
    risk_traits: ['read'],
    targets: [{ pointer: '/pattern', kind: 'path', names: 'listing', under: '/path' }],
  },
];

function decide(tool: string, input: unknown, rules: PermissionRule[]) {
  return evaluatePermissions({
    toolName: tool,
    input,
    manifest: MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules }] },
  }).verdict;
}

const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };
const sources = (count: number) => Array.from({ length: count }, (_, i) => `src/a${i}.ts`);

describe('a call naming more paths than can be compared in bounded time', () => {
  it('asks of more than MAX_PATH_TARGETS paths, and reads as many as usual', () => {
    expect(decide('ReadMany', { paths: sources(MAX_PATH_TARGETS) }, [denySecrets])).toBe('allow');
    expect(decide('ReadMany', { paths: sources(MAX_PATH_TARGETS + 1) }, [denySecrets])).toBe('ask');
    expect(decide('ReadMany', { paths: sources(90_000) }, [denySecrets])).toBe('ask');
  });

  it('counts a pattern list joined to a directory list as their product', () => {
    const pattern = Array.from({ length: 100 }, (_, i) => `*.t${i}`);
    const path = Array.from({ length: 100 }, (_, i) => `src/d${i}`);
    expect(
      decide('Glob', { pattern: pattern.slice(0, 10), path: path.slice(0, 10) }, [denySecrets]),
    ).toBe('allow');
    expect(decide('Glob', { pattern, path }, [denySecrets])).toBe('ask');
  });

  it('asks of a path longer than MAX_PATH_LENGTH', () => {
    const long = `src/${'a'.repeat(MAX_PATH_LENGTH)}.ts`;
    expect(decide('ReadMany', { paths: [long] }, [denySecrets])).toBe('ask');
    expect(decide('ReadMany', { paths: [`src/${'a'.repeat(900_000)}`] }, [denySecrets])).toBe(
      'ask',
    );
  });

  it('still reads the URLs of a call whose paths overflow', () => {
    const denyHost: PermissionRule = { verdict: 'deny', urls: ['https://internal.example/*'] };
    const input = { paths: sources(MAX_PATH_TARGETS + 1), url: 'https://internal.example/x' };
    expect(decide('ReadMany', input, [denyHost])).toBe('deny');
  });
});
