import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The coding agents the harness drives, by the name `airlock hooks install` takes. */
export type AgentName = 'claude-code' | 'codex' | 'gemini';

/** Every agent, in the order tests and the bench report them. */
export const agentNames: readonly AgentName[] = ['claude-code', 'codex', 'gemini'];

const commandOf: Record<AgentName, string> = {
  'claude-code': 'claude',
  codex: 'codex',
  gemini: 'gemini',
};

/** Where the pinned agent CLIs live: AIRLOCK_AGENTS_BIN, else packages/tests/.agents-cache (scripts/install-agents.sh). */
export function agentsBinDir(): string {
  const fromEnv = process.env.AIRLOCK_AGENTS_BIN;
  if (fromEnv) return fromEnv;
  const testsRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return join(testsRoot, '.agents-cache', 'node_modules', '.bin');
}

/** The path of an agent's CLI (which may not exist: see {@link missingAgentReason}). */
export function agentBinary(agent: AgentName): string {
  return join(agentsBinDir(), commandOf[agent]);
}

/** Why an agent's tests cannot run here, or undefined when its binary is installed. */
export function missingAgentReason(agent: AgentName): string | undefined {
  const binary = agentBinary(agent);
  if (existsSync(binary)) return undefined;
  return `${agent} is not installed at ${binary}: run \`bash packages/tests/scripts/install-agents.sh\` (about 900 MB, npm registry) to run these tests`;
}

/** The agents installed here; prints, once per agent, why a missing one is skipped. */
export function installedAgents(): AgentName[] {
  return agentNames.filter((agent) => {
    const reason = missingAgentReason(agent);
    if (reason) console.warn(`skipping ${agent}: ${reason}`);
    return reason === undefined;
  });
}
