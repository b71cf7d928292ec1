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
      names.set(`${credential.kind}:${credential.credential_id}`, credential.label);
    }
  }
  return names;
}

/** Where the page reads the credentials: the kernel, the workspace and the member's token. */
export interface NamesSource {
  url: string;
  workspaceId: string;
  token: string;
}

/**
 * People's names for the views that show principals (the run story, the
 * Decided page): the workspace's credentials are read once, when the view
 * starts, so no event costs a request. A principal without a name (or names
 * that could not be read) shows as itself.
 */
export class PrincipalNames {
  private names = new Map<string, string>();

  constructor(private readonly source: NamesSource) {}

  /** Reads the credentials (revoked ones too: they decided older rows). Never throws. */
  async load(): Promise<void> {
    const { url, workspaceId, token } = this.source;
    try {
      const answer = await fetch(
        `${url.replace(/\/+$/, '')}/api/v1/workspaces/${encodeURIComponent(workspaceId)}/credentials?include_revoked=true`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      if (!answer.ok) return;
      const body = (await answer.json()) as { credentials?: ListedCredential[] };
      this.names = namesOf(body.credentials ?? []);
    } catch {
      // Without names the views show principals as they are: nothing else depends on them.
    }
  }

  /** The name of a principal, or null when it has none. */
  readonly of = (principal: string): string | null => this.names.get(principal) ?? null;
}
