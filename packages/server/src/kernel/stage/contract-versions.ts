import { AirlockError } from '../../errors.js';
import { profileConfigurationsThrough } from '../../store/profiles.js';
import type { Tx } from '../../store/store.js';

/** JSON text with object keys sorted, so two equal declarations compare equal. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function versionOf(contract: unknown): number | null {
  const version = (contract as { contract_version?: unknown } | null)?.contract_version;
  return typeof version === 'number' ? version : null;
}

/**
 * Refuses a profile whose action contract changes without a `contract_version`
 * higher than every one the application published before (spec 004: a team
 * stops a requires_user rule from asking by publishing a higher version that
 * moves it to allowed; a lower or equal version is refused). The floor is the
 * application's: a version without a contract in between does not lower it.
 * Republishing the latest contract, or none, is accepted. Call it inside the
 * transaction that stores the new version, after the application row was
 * bumped (which serializes concurrent declarations).
 * @throws AirlockError contract_version_not_higher (409).
 */
export async function assertContractVersionRises(
  tx: Tx,
  options: { agentApplicationId: string; previousVersion: number; contract: unknown },
): Promise<void> {
  if (options.contract === undefined || options.previousVersion < 1) return;
  const previous = await profileConfigurationsThrough(
    tx,
    options.agentApplicationId,
    options.previousVersion,
  );
  let latest: unknown;
  let floor: number | null = null;
  for (const configuration of previous) {
    const contract = (JSON.parse(configuration) as { action_contract?: unknown }).action_contract;
    if (contract === undefined || contract === null) continue;
    latest ??= contract;
    const version = versionOf(contract);
    if (version !== null && (floor === null || version > floor)) floor = version;
  }
  if (latest === undefined || canonicalJson(latest) === canonicalJson(options.contract)) return;
  const now = versionOf(options.contract);
  if (floor !== null && now !== null && now <= floor) {
    throw new AirlockError(
      'contract_version_not_higher',
      `the action contract changed but its contract_version ${now} is not higher than ${floor}, the highest this application published; publish ${floor + 1} or higher`,
    );
  }
}
