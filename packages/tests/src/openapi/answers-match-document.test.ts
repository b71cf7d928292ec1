import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { fetchDocument, type ServedDocument } from './openapi-document.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, then checked against the document.
type Loose = any;

/** One answer the kernel sent, as the document must describe it. */
interface Sent {
  method: string;
  path: string;
  status: number;
  contentType: string;
  text: string;
}

/** The document's path template that a concrete path matches, e.g. `/api/v1/workspaces/{workspace_id}/runs`. */
function templateOf(document: ServedDocument, method: string, path: string): string | null {
  const parts = path.split('?')[0]!.split('/');
  for (const [template, item] of Object.entries(document.paths)) {
    if (!item[method.toLowerCase()]) continue;
    const pattern = template.split('/');
    if (pattern.length !== parts.length) continue;
    if (pattern.every((part, i) => /^\{.+\}$/.test(part) || part === parts[i])) return template;
  }
  return null;
}

/** A validator built from one of the document's schemas, its components reachable as `$defs`. */
function validatorOf(document: ServedDocument, schema: unknown): z.ZodType {
  const local = (value: unknown) =>
    JSON.parse(JSON.stringify(value).replaceAll('#/components/schemas/', '#/$defs/'));
  return z.fromJSONSchema({
    ...local(schema),
    $defs: local(document.components.schemas),
  } as Parameters<typeof z.fromJSONSchema>[0]);
}

/** What is wrong with an answer by the document: undeclared status or type, or a body off its schema. */
function breach(document: ServedDocument, sent: Sent): string | null {
  const template = templateOf(document, sent.method, sent.path);
  if (!template) return 'no operation of the document serves this path';
  const operation = document.paths[template]![sent.method.toLowerCase()]!;
  const response = operation.responses[String(sent.status)] as
    | { content?: Record<string, { schema: unknown }> }
    | undefined;
  if (!response)
    return `status ${sent.status} is not among the declared ${Object.keys(operation.responses)}`;
  const type = sent.contentType.split(';')[0]!.trim();
  const declared = response.content?.[type];
  if (!declared) return `content type ${type} is not declared for ${sent.status}`;
  const validator = validatorOf(document, declared.schema);
  const values =
    type === 'application/x-ndjson'
      ? sent.text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [JSON.parse(sent.text)];
  for (const value of values) {
    const checked = validator.safeParse(value);
    if (!checked.success) {
      return `the body does not match its schema: ${JSON.stringify(checked.error.issues).slice(0, 600)}`;
    }
  }
  return null;
}

describe("the kernel's answers, checked against its own OpenAPI document", () => {
  let kernel: TestKernel;
  let document: ServedDocument;
  const sent: Sent[] = [];
  let ws: string;

  async function call(
    token: string | null,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Loose }> {
    const response = await fetch(`${kernel.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    sent.push({ method, path, status: response.status, contentType, text });
    return {
      status: response.status,
      body: contentType.startsWith('application/json') && text ? JSON.parse(text) : text,
    };
  }

  beforeAll(async () => {
    kernel = await startTestKernel();
    document = await fetchDocument(kernel);
    const { tokens } = kernel.workspace;
    ws = `/api/v1/workspaces/${kernel.workspace.id}`;
    const run = await call(tokens.agent, 'POST', `${ws}/runs`, {
      approval_mode: 'ask',
      input: 'go',
      provider: {
        kind: 'scripted',
        rounds: [
          { tool_calls: [{ name: 'deploy', input: { to: 'prod' } }, { name: 'rm' }] },
          { final: 'done' },
        ],
      },
    });
    expect(run.status).toBe(201);
    const runPath = `${ws}/runs/${run.body.id}`;
    for (let i = 0; i < 500; i += 1) {
      const tasks = await call(tokens.member, 'GET', `${runPath}/tasks`);
      if (tasks.body.tasks?.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await call(tokens.member, 'GET', `${ws}/decisions`);
    await call(tokens.member, 'GET', `${runPath}/tasks/t1`);
    await call(tokens.member, 'POST', `${runPath}/tasks/t1/approve`, {});
    await call(tokens.member, 'POST', `${runPath}/tasks/t2/deny`, { reason: 'no' });
    // Refused: a decided row, an unknown run, a bad query, a wrong plane, no token.
    await call(tokens.member, 'POST', `${runPath}/tasks/t2/deny`, {});
    await call(tokens.member, 'GET', `${ws}/runs/run_nope`);
    await call(tokens.member, 'GET', `${ws}/runs?limit=0`);
    await call(tokens.member, 'GET', `${ws}/audit?order=sideways`);
    await call(tokens.executor, 'GET', `${ws}/runs`);
    await call(null, 'GET', `${ws}/runs`);
    const inbox = await call(tokens.executor, 'GET', '/executor_api/v1/inbox');
    const item = inbox.body.items?.[0];
    if (item) {
      const task = `/executor_api/v1/runs/${item.run_id}/tasks/${item.task_key}`;
      const claim = await call(tokens.executor, 'POST', `${task}/claim`, {});
      await call(tokens.executor, 'POST', `${task}/heartbeat`, { claim_id: claim.body.claim_id });
      await call(tokens.executor, 'POST', `${task}/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'succeeded',
        result: { ok: true },
      });
      await call(tokens.executor, 'POST', `${task}/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'succeeded',
      });
    }
    await call(tokens.executor, 'POST', '/executor_api/v1/claim', {});
    for (const path of [
      `${ws}/runs`,
      runPath,
      `${runPath}/events`,
      `${runPath}/tasks`,
      `${ws}/retention`,
      `${ws}/approval_policy`,
      `${ws}/notifications`,
      `${ws}/credentials`,
      `${ws}/credentials/self`,
      `${ws}/agent_applications`,
      `${ws}/overlays/project/${kernel.workspace.appId}`,
    ]) {
      await call(tokens.member, 'GET', path);
    }
    await call(tokens.member, 'GET', `${runPath}/audit`);
    await call(tokens.member, 'GET', `${ws}/audit?order=newest&limit=3`);
    await call(tokens.agent, 'GET', '/agent_api/v1/profile/configuration');
    const made = await call(tokens.member, 'POST', `${ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: 'Dana',
    });
    await call(tokens.member, 'POST', `${ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: 'dana',
    });
    await call(tokens.member, 'POST', `${ws}/credentials/${made.body.credential_id}/label`, {
      label: 'Dana R.',
    });
    await call(tokens.member, 'POST', `${ws}/credentials/${made.body.credential_id}/revoke`, {});
    const app = await call(tokens.member, 'POST', `${ws}/agent_applications`, { name: 'second' });
    await call(tokens.member, 'POST', `${ws}/agent_applications/${app.body.id}/remove`, {});
    await call(tokens.agent, 'POST', `${runPath}/stop`, {});
  }, 120_000);

  afterAll(async () => {
    await kernel?.close();
  });

  it('sent many answers, of successes and refusals alike', () => {
    const statuses = new Set(sent.map((answer) => answer.status));
    for (const status of [200, 201, 400, 401, 403, 404, 409]) expect(statuses).toContain(status);
    expect(sent.length).toBeGreaterThan(30);
  });

  it('answers each with a declared status and content type, and a body its schema allows', () => {
    const breaches = sent
      .map((answer) => ({ answer, problem: breach(document, answer) }))
      .filter(({ problem }) => problem !== null)
      .map(
        ({ answer, problem }) =>
          `${answer.method} ${answer.path} → ${answer.status}: ${problem} (${answer.text.slice(0, 200)})`,
      );
    expect(breaches).toEqual([]);
  });

  it('finds a body its schema does not allow (so a pass means something)', () => {
    const answer = sent.find((one) => one.status === 200 && one.path.endsWith('/credentials'));
    expect(answer).toBeDefined();
    const forged = JSON.parse(answer!.text);
    forged.credentials[0].kind = 'superuser';
    expect(breach(document, { ...answer!, text: JSON.stringify(forged) })).toMatch(/schema/);
    const extra = JSON.parse(answer!.text);
    extra.credentials[0].token_hash = 'x';
    expect(breach(document, { ...answer!, text: JSON.stringify(extra) })).toMatch(/schema/);
    expect(breach(document, { ...answer!, status: 418 })).toMatch(/not among the declared/);
  });
});
