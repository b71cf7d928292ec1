import { visibleText } from '@airlock/sdk';

/** A credential as `GET .../credentials` lists it (the parts names need). */
export interface ListedCredential {
  credential_id: string;
  kind: string;
  label: string;
}

/**
 * The names of a workspace's principals (`member:cred_x` -> `Ana Lima`): a
 * credential's label, unless it is still its kind (the default), which names
 * nobody.
 */
export function namesOf(credentials: readonly ListedCredential[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const credential of credentials) {
    if (credential.label && credential.label !== credential.kind) {
      // A label is text a person typed: its hidden characters show as marks, as a model's do.
      const name = visibleText(credential.label, { oneLine: true });
      names.set(`${credential.kind}:${credential.credential_id}`, name);
    }
  }
  return names;
}

/**
 * People's names for the views that show principals (the run story, the
 * Decided page): the workspace's credentials are read once, when the view
 * starts, so no event costs a request. A principal without a name (or names
 * that could not be read) shows as itself.
 */
export class PrincipalNames {
  private names = new Map<string, string>();

  /** `read` lists the workspace's credentials, revoked ones too: they decided older rows. */
  constructor(private readonly read: () => Promise<readonly ListedCredential[]>) {}

  /** Reads the credentials once. Never throws: without names, principals show as they are. */
  async load(): Promise<void> {
    try {
      this.names = namesOf(await this.read());
    } catch {
      // Nothing else depends on names: a view keeps working with principals.
    }
  }

  /** The name of a principal, or null when it has none. */
  readonly of = (principal: string): string | null => this.names.get(principal) ?? null;
}
