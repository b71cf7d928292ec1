/**
 * How long an acknowledged change survives: `full` (the default) makes every
 * answer that reports a change wait until the change is on disk, so it
 * survives power loss; `relaxed` answers once the change is in the database's
 * log in memory, so an OS crash or power loss can undo the last moments.
 */
export type Durability = 'full' | 'relaxed';

/** The modes, in the order the CLI lists them. */
export const DURABILITY_MODES: readonly Durability[] = ['full', 'relaxed'];

/** The default mode: power-loss safe. */
export const DEFAULT_DURABILITY: Durability = 'full';

/** A durability setting that is not one of {@link DURABILITY_MODES}; its `code` is `invalid_durability`. */
export class InvalidDurabilityError extends Error {
  readonly code = 'invalid_durability';

  constructor(
    readonly value: string,
    source: string,
  ) {
    super(
      `${source} must be ${DURABILITY_MODES.join(' or ')}, not "${value}" (invalid_durability)`,
    );
    this.name = 'InvalidDurabilityError';
  }
}

/**
 * Reads a durability setting; absent or empty gives the default.
 * @throws InvalidDurabilityError on any other text.
 */
export function parseDurability(text: string | undefined, source = '--durability'): Durability {
  if (text === undefined || text === '') return DEFAULT_DURABILITY;
  const mode = DURABILITY_MODES.find((candidate) => candidate === text);
  if (!mode) throw new InvalidDurabilityError(text, source);
  return mode;
}
