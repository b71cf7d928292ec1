import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolManifest } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { MAX_URL_LENGTH, MAX_URL_TARGETS } from './url-targets.js';

/*
 * Every URL target is parsed and compared with every URL rule: 40,000 URLs (about 1 MB of JSON,
 * the kernel's body limit) under 20 rules held the evaluator, and so the kernel's event loop, for
 * a second. A call naming more URLs than MAX_URL_TARGETS, or one longer than MAX_URL_LENGTH, may
 * name any URL: an allow covers none of it, a deny or an ask over URLs asks.
 */

const MANIFEST: ToolManifest = [
  {
    name: 'FetchMany',
    input_schema: { type: 'object' },
    risk_traits: ['network'],
    targets: [
      { pointer: '/urls/*', kind: 'url' },
      { pointer: '/save_to', kind: 'path', names: 'file' },
    ],
  },
  {
    name: 'FetchProse',
    input_schema: { type: 'object' },
    risk_traits: ['network'],
    targets: [{ pointer: '/prompt', kind: 'url', names: 'text' }],
  },
];

function decide(tool: string, input: unknown, rules: PermissionRule[], ruleSetId = 'autonomous') {
  return evaluatePermissions({
    toolName: tool,
    input,
    manifest: MANIFEST,
    projectRoot: '/repo',
    ruleSetId,
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId, rules }] },
  });
}

const denyInternal: PermissionRule = Object.freeze({
  verdict: 'deny',
  urls: ['https://internal.example/*'],
});
const pages = (count: number) => Array.from({ length: count }, (_, i) => `https://ex.com/p${i}`);

describe('a call naming more URLs than can be compared in bounded time', () => {
  it('reads up to MAX_URL_TARGETS URLs one by one, and asks of more under a deny over URLs', () => {
    expect(decide('FetchMany', { urls: pages(MAX_URL_TARGETS) }, [denyInternal]).verdict).toBe(
      'allow',
    );
    const over = decide('FetchMany', { urls: pages(MAX_URL_TARGETS + 1) }, [denyInternal]);
    expect(over.verdict).toBe('ask');
    expect(over.detail).toContain(`more than ${MAX_URL_TARGETS} URLs`);
    expect(over.detail).toContain('https://internal.example/*');
    expect(decide('FetchMany', { urls: pages(40_000) }, [denyInternal]).verdict).toBe('ask');
  });

  it('still denies a guarded URL among as many as are compared', () => {
    const urls = [...pages(MAX_URL_TARGETS - 1), 'https://internal.example/admin'];
    expect(decide('FetchMany', { urls }, [denyInternal]).verdict).toBe('deny');
  });

  it('never lets an allow cover URLs it could not compare (supervised asks of the rest)', () => {
    const allowAll: PermissionRule = { verdict: 'allow', urls: ['*'] };
    const allowHttps: PermissionRule = { verdict: 'allow', urls: ['https://*'] };
    for (const allow of [allowAll, allowHttps]) {
      expect(decide('FetchMany', { urls: pages(10) }, [allow], 'supervised').verdict).toBe('allow');
      expect(
        decide('FetchMany', { urls: pages(MAX_URL_TARGETS + 1) }, [allow], 'supervised').verdict,
      ).toBe('ask');
    }
  });

  it('counts the URLs found in prose, and asks of a URL longer than MAX_URL_LENGTH', () => {
    const prose = pages(MAX_URL_TARGETS + 1).join(' and ');
    expect(decide('FetchProse', { prompt: prose }, [denyInternal]).verdict).toBe('ask');
    const long = `https://ex.com/${'a'.repeat(MAX_URL_LENGTH)}`;
    expect(decide('FetchMany', { urls: [long] }, [denyInternal]).verdict).toBe('ask');
    expect(
      decide('FetchMany', { urls: [long.slice(0, MAX_URL_LENGTH)] }, [denyInternal]).verdict,
    ).toBe('allow');
  });

  it('still reads the paths of a call whose URLs overflow', () => {
    const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };
    const input = { urls: pages(MAX_URL_TARGETS + 1), save_to: 'secrets/key' };
    expect(decide('FetchMany', input, [denySecrets]).verdict).toBe('deny');
    expect(decide('FetchMany', { ...input, save_to: 'out/page.html' }, [denySecrets]).verdict).toBe(
      'allow',
    );
  });
});
