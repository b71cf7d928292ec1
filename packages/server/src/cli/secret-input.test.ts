import { describe, expect, it } from 'vitest';
import { looksLikeToken } from './secret-input.js';

describe('looksLikeToken, which warns of a secret on the command line', () => {
  it('holds a kernel token as a secret however it was pasted', () => {
    expect(looksLikeToken('alk_member_Q2h3bG9uZ3Rva2Vu')).toBe(true);
    expect(looksLikeToken("'alk_member_Q2h3'")).toBe(true);
    expect(looksLikeToken('--token=alk_member_Q2h3')).toBe(true);
  });

  it('holds any word too long to be a credential id as a pasted secret', () => {
    expect(looksLikeToken(`sk-${'x'.repeat(48)}`)).toBe(true);
  });

  it('lets a credential id through', () => {
    expect(looksLikeToken('cred_Q2h3bG9uZ3Rva2Vu0a1b')).toBe(false);
  });
});
