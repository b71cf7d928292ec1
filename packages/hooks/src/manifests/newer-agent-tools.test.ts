import type { HookedAgent } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { decideTool, denyEnv, denySecrets } from './fixtures/decide-tool.js';
import { TOOL_MANIFESTS } from './tool-manifests.js';

// Tools the pinned agents gained in their current versions, found by listing what each offers its
// model (packages/tests/src/agents/airlock-agent-tools.test.ts): until declared, no path rule read
// them, and under a deny of secrets/** Gemini CLI 0.61's grep_search printed secrets/key and
// Codex 0.169's view_image showed the model secrets/key.png.

describe("the pinned agents' newer tools meet the path rules", () => {
  it.each([
    ['gemini', 'grep_search', { pattern: 'TOP', dir_path: 'secrets' }, denySecrets],
    ['gemini', 'grep_search', { pattern: 'TOP', dir_path: '/repo/secrets' }, denySecrets],
    // No dir_path: it searches the working directory, secrets/ and every .env in it.
    ['gemini', 'grep_search', { pattern: 'TOP' }, denySecrets],
    ['gemini', 'grep_search', { pattern: 'KEY=' }, denyEnv],
    ['codex', 'view_image', { path: 'secrets/key.png' }, denySecrets],
    ['codex', 'view_image', { path: '/repo/secrets/key.png' }, denySecrets],
    ['claude-code', 'Monitor', { description: 'x', command: 'cat secrets/key' }, denySecrets],
    ['claude-code', 'Monitor', { description: 'x', command: 'tail -f .env' }, denyEnv],
  ] as const)('%s %s %j under %j is not granted', (agent, tool, input, rule) => {
    expect(decideTool(agent, tool, input, rule)).not.toBe('allow');
  });

  it.each([
    ['gemini', 'grep_search', { pattern: 'TODO', dir_path: 'src' }, denySecrets],
    ['codex', 'view_image', { path: 'docs/diagram.png' }, denySecrets],
    ['claude-code', 'Monitor', { description: 'x', command: 'tail -f build.log' }, denySecrets],
  ] as const)('%s %s %j away from the guarded paths runs', (agent, tool, input, rule) => {
    expect(decideTool(agent, tool, input, rule)).toBe('allow');
  });

  // Undeclared, each asked under the autonomous set whatever the rule was about (approval fatigue).
  it.each([
    ['claude-code', 'ToolSearch', { query: 'select:WebFetch' }],
    ['claude-code', 'Agent', { description: 'look', prompt: 'find the tests' }],
    ['claude-code', 'Skill', { skill: 'pdf' }],
    ['gemini', 'grep_search', { pattern: 'TODO', include_pattern: '*.ts' }],
  ] as const)(
    '%s %s %j runs under the autonomous set and a deny of **/.env',
    (agent, tool, input) => {
      expect(decideTool(agent, tool, input, denyEnv)).toBe('allow');
    },
  );

  it('declares their risks: Monitor runs a command, view_image and grep_search read', () => {
    const traits = (agent: HookedAgent, name: string) =>
      TOOL_MANIFESTS[agent].find((tool) => tool.name === name)?.risk_traits;
    expect(traits('claude-code', 'Monitor')).toContain('execute');
    expect(traits('codex', 'view_image')).toEqual(['read']);
    expect(traits('gemini', 'grep_search')).toEqual(['read']);
  });
});
