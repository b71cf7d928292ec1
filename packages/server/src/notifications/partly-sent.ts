/**
 * A notice sent to several recipients one message each (email): an attempt
 * that reached some of them and not the others keeps who it reached on the
 * delivery (its `external_ref`), so the next attempt, and a person's
 * redelivery of a dead one, write only to the others. A delivery that reached
 * everyone keeps nothing: redelivering it writes to everyone again.
 */

/** An attempt that reached `reached` (every recipient reached so far) but not all. */
export class PartlySent extends Error {
  constructor(
    message: string,
    readonly reached: readonly string[],
  ) {
    super(message);
  }
}

/** What a delivery keeps of the recipients an earlier attempt reached. */
export function reachedRef(reached: readonly string[]): string {
  return JSON.stringify({ reached });
}

/** The recipients an earlier attempt reached, from what the delivery kept (none when it kept no list). */
export function reachedOf(externalRef: string | null): ReadonlySet<string> {
  if (!externalRef?.startsWith('{')) return new Set();
  try {
    const { reached } = JSON.parse(externalRef) as { reached?: unknown };
    return new Set(Array.isArray(reached) ? reached.filter((r) => typeof r === 'string') : []);
  } catch {
    return new Set();
  }
}
