import { formatDuration, type KernelUrl, shownKernelUrl } from '@airlock/core/command-line';
import {
  type Call,
  createClient,
  isAirlockError,
  isConnectionError,
  isDeadlineExceededError,
} from '@airlock/sdk';
import {
  proxyFailureStatus,
  servesAirlockApi,
  unlikeKernelAnswer,
  unlikeKernelFailure,
} from './kernel-answer.js';
import { OperatorError } from './operator-error.js';

/**
 * The path of a kernel URL the kernel found no route under (`--url
 * http://host:4820/api/v1`, copied from a curl line), or null: a kernel
 * without the route at the URL's root is an older kernel, not a wrong URL.
 */
function misplacedPath(error: unknown, url: string): string | null {
  if (!isAirlockError(error) || error.code !== 'not_found') return null;
  if (!error.detail.startsWith('no route ')) return null;
  const { pathname } = new URL(url);
  return pathname === '/' || pathname === '' ? null : pathname;
}

/** A credential and where it was read from, for a refusal to name. */
export interface TokenSetting {
  readonly token: string;
  readonly source: '--token' | 'AIRLOCK_TOKEN';
}

/**
 * The SDK's call, with an unreachable or silent kernel, a server that does
 * not answer as an Airlock kernel, and a token it does not know, told the
 * way an operator reads it: each names the setting to check.
 */
export function callerOf(kernel: KernelUrl, credential: TokenSetting, timeoutMs: number): Call {
  const { url } = kernel;
  const { token } = credential;
  const client = createClient({ url, token, timeoutMs });
  // What the messages show: without a user:secret@ part (stderr lands in CI logs).
  const shown = shownKernelUrl(url);
  const notKernel = (why: string) =>
    new OperatorError(
      `the server at ${shown} did not answer as an Airlock kernel: ${why}; ` +
        (kernel.source === 'default'
          ? "pass the kernel's URL as --url or AIRLOCK_URL"
          : `check ${kernel.source}`),
      1,
    );
  const reached: Call = async (operation, input, options) => {
    try {
      return await client.call(operation, input, options);
    } catch (error) {
      if (isDeadlineExceededError(error)) {
        throw new OperatorError(
          `the kernel at ${shown} did not answer within ${formatDuration(timeoutMs)} ` +
            '(--timeout or AIRLOCK_TIMEOUT waits longer); a change it was asked for may have been made: read before asking again',
          1,
        );
      }
      const proxied = proxyFailureStatus(error);
      if (proxied !== null) {
        throw new OperatorError(
          `the server at ${shown} answered HTTP ${proxied} in words not the kernel's: a proxy or load balancer in front of it, whose kernel may be restarting, down or slow; try again`,
          1,
        );
      }
      const unlike = unlikeKernelFailure(error);
      if (unlike) throw notKernel(unlike);
      const path = misplacedPath(error, url);
      if (path !== null) {
        throw new OperatorError(
          `the kernel at ${shown} has no route for this command: ${kernel.source} holds the path ${path}; ` +
            `give the kernel's base URL without it, such as ${new URL(url).origin} (each command adds /api/v1/...)`,
          1,
        );
      }
      if (isAirlockError(error) && error.code === 'unauthenticated') {
        // A token copied short or from another kernel's first start: say which one was sent.
        throw new OperatorError(
          `unauthenticated: ${error.detail} (the token of ${credential.source}; ` +
            '`airlock serve` prints a member token on its first start, `airlock token create --kind member` makes another)',
          1,
        );
      }
      if (!isConnectionError(error)) throw error;
      const cause = error.cause as { cause?: { code?: string }; message?: string } | undefined;
      const reason = cause?.cause?.code ?? cause?.message ?? error.detail;
      const check =
        kernel.source === 'default'
          ? ', the default URL: start one with airlock serve, or pass its URL as --url or AIRLOCK_URL'
          : `: check ${kernel.source}, and that the kernel runs there (airlock serve)`;
      throw new OperatorError(`cannot reach the kernel at ${shown} (${reason})${check}`, 1);
    }
  };
  // Read once per command: an export of many pages asks at most once.
  let airlockApi: Promise<boolean> | undefined;
  const servesAirlock = () => {
    airlockApi ??= servesAirlockApi({ url, timeoutMs });
    return airlockApi;
  };
  return async (operation, input, options) => {
    const answer = await reached(operation, input, options);
    const unlike = await unlikeKernelAnswer(operation, answer, servesAirlock);
    if (unlike) throw notKernel(unlike);
    return answer;
  };
}
