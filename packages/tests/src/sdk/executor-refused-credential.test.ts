import {
  createClient,
  createExecutor,
  type Executor,
  isForbiddenError,
  isUnauthorizedError,
} from '@airlock/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { rejectionOf, useMemberKernel } from '../support/member-kernel.js';

/**
 * An executor whose credential the kernel refuses stops claiming: each poll
 * would be refused again and told to onError without end. How long "no
 * more" lasts is measured on a second executor with a working credential
 * and the same poll interval, not on the clock: by the time it has polled
 * twenty times, the refused one would have too.
 */
describe('an executor whose credential the kernel refuses', () => {
  const file = useMemberKernel({ credentialRecheckMs: 50 });
  const started: Executor[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((executor) => executor.close()));
  });

  /** An executor polling every 20 ms, its errors and the requests it sent. */
  const serve = (token: string) => {
    const errors: Error[] = [];
    let requests = 0;
    const executor = createExecutor({
      url: file.kernel.url,
      token,
      tools: { bash: () => 'ran' },
      pollMs: 20,
      onError: (error) => errors.push(error),
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    });
    started.push(executor);
    return { executor, errors, requests: () => requests };
  };

  /** Waits until a working executor has polled twenty times more. */
  const twentyPolls = async () => {
    const control = serve(file.kernel.workspace.tokens.executor);
    await control.executor.ready;
    const from = control.requests();
    await eventually(() => control.requests() >= from + 20, { what: 'twenty polls' });
    expect(control.errors).toEqual([]);
  };

  it('a member token (the wrong kind): ready rejects ForbiddenError, told once, nothing more is sent', async () => {
    const refused = serve(file.kernel.workspace.tokens.member);
    const error = await rejectionOf(refused.executor.ready);
    expect(isForbiddenError(error)).toBe(true);
    await eventually(() => refused.errors.length > 0);
    const sent = refused.requests();
    await twentyPolls();
    expect(refused.errors).toHaveLength(1);
    expect(isForbiddenError(refused.errors[0])).toBe(true);
    expect(refused.requests()).toBe(sent);
    expect(await rejectionOf(refused.executor.closed)).toBe(error);
  });

  it('a credential revoked while it serves: told once as UnauthorizedError, then it claims no more', async () => {
    const workspace = createClient({
      url: file.kernel.url,
      token: file.kernel.workspace.tokens.member,
    });
    const made = await workspace.call('credentials.create', {
      workspace_id: file.kernel.workspace.id,
      kind: 'executor',
      agent_application_id: file.kernel.workspace.appId,
    });
    const revoked = serve(made.token);
    await revoked.executor.ready;
    await workspace.call('credentials.revoke', {
      workspace_id: file.kernel.workspace.id,
      credential_id: made.credential_id,
    });
    await eventually(() => revoked.errors.length > 0, { what: 'the refusal' });
    const sent = revoked.requests();
    await twentyPolls();
    expect(revoked.errors).toHaveLength(1);
    expect(isUnauthorizedError(revoked.errors[0])).toBe(true);
    expect(revoked.requests()).toBe(sent);
    expect(await rejectionOf(revoked.executor.closed)).toBe(revoked.errors[0]);
  });
});
