import type { HookedAgent } from '@airlock/core';
import { ANSWER_BYTES_MAX, cappedText, failure } from './doctor-kernels.js';
import type { DoctorCheck } from './doctor-types.js';
import { isJsonObject } from './json-settings.js';

/**
 * The hook endpoints the clients post to: the Node.js client's neutral one, and each agent's own
 * (its shell clients and Claude Code's HTTP hook). A kernel of another release may answer
 * /healthz and the profile as Airlock does and still lack one, refusing every tool call.
 */
function hookPaths(agents: readonly HookedAgent[]): string[] {
  return [
    '/agent_api/v1/hooks/events',
    ...agents.map((agent) => `/agent_api/v1/hooks/${agent}/default`),
  ];
}

/**
 * What one endpoint answers an empty event: Airlock refuses it as invalid
 * input (400 `invalid_input`) before anything is recorded; null when it did,
 * else what it answered instead.
 */
async function endpointProblem(url: string, token: string): Promise<string | null> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(5000),
    });
    const text = await cappedText(response, ANSWER_BYTES_MAX);
    let code: unknown;
    try {
      const body: unknown = JSON.parse(text);
      code = isJsonObject(body) && isJsonObject(body.error) ? body.error.code : undefined;
    } catch {
      code = undefined;
    }
    if (response.status === 400 && code === 'invalid_input') return null;
    return `answered ${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
  } catch (error) {
    return `did not answer (${failure(error)})`;
  }
}

/**
 * Checks that the kernel serves the hook endpoints of these agents' clients,
 * posting each an empty event (refused as invalid, so nothing is recorded):
 * a missing one is a kernel of another release, and every tool call posted
 * there is refused.
 */
export async function hookEndpointsCheck(
  base: string,
  token: string,
  agents: readonly HookedAgent[],
): Promise<DoctorCheck> {
  const problems: string[] = [];
  for (const path of hookPaths(agents)) {
    const problem = await endpointProblem(`${base}${path}`, token);
    if (problem !== null) problems.push(`${path} ${problem}`);
  }
  if (problems.length === 0) {
    return {
      check: 'hook endpoints',
      status: 'ok',
      detail: 'the kernel serves the hook endpoints the clients post to',
    };
  }
  return {
    check: 'hook endpoints',
    status: 'fail',
    detail: `${base} does not serve the hooks as this client expects (${problems.join('; ')}): it is another release of Airlock, and every tool call posted there will be refused`,
    fix: "run a kernel of the same Airlock release as @airlock/hooks, or install the hooks of the kernel's release",
  };
}
