import { describe, expect, it } from 'vitest';
import { namesOf } from './principal-names.js';

describe('namesOf', () => {
  it("names a principal by its credential's label, unless the label is still the kind", () => {
    const names = namesOf([
      { credential_id: 'cred_a', kind: 'member', label: 'Ana Lima' },
      { credential_id: 'cred_b', kind: 'member', label: 'member' },
      { credential_id: 'cred_c', kind: 'agent', label: 'CI agent' },
    ]);
    expect([...names]).toEqual([
      ['member:cred_a', 'Ana Lima'],
      ['agent:cred_c', 'CI agent'],
    ]);
  });
});
