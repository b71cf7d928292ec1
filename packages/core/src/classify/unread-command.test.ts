import { describe, expect, it } from 'vitest';
import { evaluateActionContract } from '../contracts/evaluate-contract.js';
import { validateActionContract } from '../contracts/validate-contract.js';
import {
  classifyShellCommand,
  MAX_CLASSIFIED_COMMAND_LENGTH,
  UNREAD_COMMAND_TAGS,
} from './action-tags.js';
import { buildEffectProfile } from './effect-profile.js';

describe('a command too long to read', () => {
  const padded = `rm -rf / # ${'x'.repeat(MAX_CLASSIFIED_COMMAND_LENGTH)}`;

  it('carries every tag but read, and a command at the bound is still read', () => {
    expect(classifyShellCommand(padded)).toEqual([...UNREAD_COMMAND_TAGS]);
    expect(UNREAD_COMMAND_TAGS).not.toContain('read');
    expect(UNREAD_COMMAND_TAGS).toContain('unknown');
    const atBound = `ls ${'a'.repeat(MAX_CLASSIFIED_COMMAND_LENGTH - 3)}`;
    expect(classifyShellCommand(atBound)).toEqual(['read']);
    const profile = buildEffectProfile({
      toolName: 'bash',
      toolInput: { command: padded },
      mode: 'ask',
      matchedRules: [],
    });
    expect(profile.action_tags).toEqual([...UNREAD_COMMAND_TAGS]);
    expect(profile.targets).toEqual([]);
  });

  it('holds for a whole call: several command fields together past the bound are not read', () => {
    const half = `ls ${'a'.repeat(MAX_CLASSIFIED_COMMAND_LENGTH / 2)}`;
    const profile = buildEffectProfile({
      toolName: 'bash',
      toolInput: { command: half, cmd: `rm -rf / ${half}` },
      mode: 'ask',
      matchedRules: [],
    });
    expect(profile.action_tags).toEqual([...UNREAD_COMMAND_TAGS]);
  });

  it('cannot slip past a contract by padding: forbidden lists still refuse it', () => {
    const contract = validateActionContract({
      contract_version: 1,
      authorization: { forbidden: ['action:destructive'], allowed: ['action:read'] },
    });
    if (!contract.ok) throw new Error('the contract should validate');
    const decided = evaluateActionContract(contract.value, {
      toolName: 'bash',
      toolInput: { command: padded },
    });
    expect(decided).toMatchObject({ verdict: 'deny', rule: { list: 'forbidden' } });
  });
});
