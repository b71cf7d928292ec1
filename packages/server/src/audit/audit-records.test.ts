import { describe, expect, it } from 'vitest';
import type { RunEventTable } from '../store/schema.js';
import { auditRecord } from './audit-records.js';

/** A `policy.changed` event of a credential made by `principal`. */
function credentialMade(principal: string | null): RunEventTable {
  return {
    workspace_id: 'ws_1',
    seq: 7,
    run_id: '',
    task_key: null,
    type: 'policy.changed',
    principal,
    created_at: 1,
    data: JSON.stringify({
      change: 'credential_created',
      scope: 'credential',
      owner_id: 'cred_1',
      before_digest: null,
      after_digest: null,
      before: null,
      after: { kind: 'member', agent_application_id: null, role: 'admin', label: 'Ana' },
      detail: 'created admin member credential cred_1 (Ana)',
    }),
  };
}

describe("an audit record's decider", () => {
  it('is a person for a change a member, an agent or the operator at the command line made', () => {
    for (const principal of ['member:cred_0', 'agent:cred_9', 'operator:cli']) {
      expect(auditRecord(credentialMade(principal), null)?.decider, principal).toBe('person');
    }
  });

  it('is the kernel for a change the kernel made by itself', () => {
    for (const principal of ['kernel', null]) {
      expect(auditRecord(credentialMade(principal), null)?.decider, String(principal)).toBe(
        'kernel',
      );
    }
  });
});
