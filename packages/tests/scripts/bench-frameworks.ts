/*
 * Prints what Airlock adds to a granted tool call inside each framework's real loop: one model
 * step proposing a call, the tool, one final step (the model is each framework's own test model,
 * answering at once). Baseline: the framework's own approval function answering "approved"
 * (AI SDK and Agents SDK `needsApproval: async () => false`; LangGraph has none, so the plain
 * tool). Airlock: the tool wrapped by @airlock/sdk's adapter against a kernel on loopback
 * (SQLite, in this process). Variants are interleaved; the figure is the p50 difference. Beside
 * it, the floor of this kernel on this machine: one authenticated GET round trip on loopback (a
 * granted call costs two kernel round trips: the check before, the report after; by default the
 * report goes behind the call, and the bench waits for it untimed after each run). With the report
 * behind the call, a third variant gives the floor of any remote check: the framework's own
 * approval function awaiting one POST to a record server in a process of its own that answers
 * after writing 13 pages and fsyncing them (floor/record-server.ts), the durable round trip a grant
 * needs with no logic at all.
 * The kernel first serves KERNEL_WARMUP granted checks and their reports (3000 by default, about
 * 15 s): V8 is still optimizing the kernel's code over its first few thousand requests (its CPU per
 * request halves), and the kernel an application talks to has been serving for hours. Each
 * framework's variants then run WARMUP times (500 by default) before they are timed, as in an
 * application that has run a few hundred turns.
 * Run: pnpm bench:frameworks   (CALLS=200 by default; DURABILITY=relaxed for a kernel that syncs
 * its WAL at checkpoints instead of at every COMMIT, see docs/durability.md; KERNEL=process for a
 * kernel in a process of its own, as `airlock serve` runs beside an application, and with it
 * PROFILE=FILE for a V8 CPU profile of that kernel)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { get, Agent as HttpAgent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { HumanMessage } from '@langchain/core/messages';
import { tool as lcTool, type StructuredToolInterface } from '@langchain/core/tools';
import {
  Agent,
  tool as agentsTool,
  type Model,
  type ModelResponse,
  run,
  setTracingDisabled,
  Usage,
} from '@openai/agents';
import { tool as aiTool, generateText, jsonSchema, stepCountIs, type ToolSet } from 'ai';
import { z } from 'zod';
import { scriptedGraph } from '../src/frameworks/langgraph-app.js';
import { declareProfile, oneLookupModel, startFrameworkKernel } from '../src/frameworks/support.js';
import { recordAsker, startRecordServer } from './floor/record.js';
import { forkKernel } from './kernel-process.js';

const CALLS = Number(process.env.CALLS ?? 200);
const WARMUP = Number(process.env.WARMUP ?? 500);
const KERNEL_WARMUP = Number(process.env.KERNEL_WARMUP ?? 3000);

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

type Invoke = (i: number) => Promise<void>;

/** An approval function that answers "approved"; the floor's awaits a durable remote record first. */
type Approve = () => Promise<boolean>;
const approveAtOnce: Approve = async () => false;

function aiSdk(wrap: (tools: ToolSet) => ToolSet, needsApproval: Approve = approveAtOnce): Invoke {
  return async (i) => {
    const model = oneLookupModel(`a${i}`, `{"q":${i}}`);
    const lookup = aiTool({
      inputSchema: jsonSchema<{ q: number }>({ type: 'object' }),
      needsApproval,
      execute: async ({ q }) => ({ q }),
    });
    await generateText({
      model,
      tools: wrap({ lookup }),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
  };
}

class OneCallModel implements Model {
  step = 0;
  constructor(private readonly id: string) {}
  async getResponse(): Promise<ModelResponse> {
    this.step += 1;
    return {
      usage: new Usage(),
      output:
        this.step === 1
          ? [
              {
                type: 'function_call',
                callId: this.id,
                name: 'lookup',
                arguments: '{"q":1}',
                status: 'completed',
              },
            ]
          : [
              {
                type: 'message',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: 'done' }],
              },
            ],
    };
  }
  // biome-ignore lint/correctness/useYield: never streamed here
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

function openaiAgents<T>(
  wrap: (tools: T[]) => T[],
  needsApproval: Approve = approveAtOnce,
): Invoke {
  return async (i) => {
    const lookup = agentsTool({
      name: 'lookup',
      description: 'lookup',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      needsApproval,
      execute: async () => 'ok',
    });
    const agent = new Agent({
      name: 'bench',
      model: new OneCallModel(`o${i}`),
      tools: wrap([lookup as T]) as never,
    });
    await run(agent, 'go');
  };
}

function langGraph(
  wrap: (tools: StructuredToolInterface[]) => StructuredToolInterface[],
  approve?: Approve,
): Invoke {
  const lookup = lcTool(async () => (approve && (await approve()) ? 'refused' : 'ok'), {
    name: 'lookup',
    description: 'lookup',
    schema: z.object({}).passthrough(),
  });
  const tools = wrap([lookup]);
  let i = 0;
  const graph = scriptedGraph(tools, (messages) =>
    messages.at(-1)?.getType() === 'tool'
      ? { content: 'done' }
      : { content: '', tool_calls: [{ id: `l${i}`, name: 'lookup', args: { q: i } }] },
  );
  return async (n) => {
    i = n;
    await graph.invoke({ messages: [new HumanMessage('go')] });
  };
}

async function timed(invoke: Invoke, i: number): Promise<number> {
  const started = performance.now();
  await invoke(i);
  return performance.now() - started;
}

/**
 * Runs the variants in turn. `flush` (untimed) waits for the reports an
 * adapter sent behind its calls, so no variant's time holds another's work.
 */
async function compare(
  name: string,
  baseline: Invoke,
  airlock: Invoke,
  flush: () => Promise<void>,
  floor?: Invoke,
): Promise<void> {
  const base: number[] = [];
  const through: number[] = [];
  const floored: number[] = [];
  for (let i = 0; i < WARMUP + CALLS; i += 1) {
    const a = await timed(baseline, i);
    const b = await timed(airlock, i);
    await flush();
    const c = floor ? await timed(floor, i) : Number.NaN;
    if (i >= WARMUP) {
      base.push(a);
      through.push(b);
      floored.push(c);
    }
  }
  const p50Base = percentile(base, 0.5);
  const p50Airlock = percentile(through, 0.5);
  const p50Floor = percentile(floored, 0.5);
  console.log(
    [
      name.padEnd(16),
      `own approval p50 ${p50Base.toFixed(2)} ms`.padEnd(28),
      `through Airlock p50 ${p50Airlock.toFixed(2)} ms`.padEnd(32),
      `added p50 ${(p50Airlock - p50Base).toFixed(2)} ms`.padEnd(20),
      `(p99 ${percentile(through, 0.99).toFixed(2)} ms)`,
      ...(floor ? [`  floor added p50 ${(p50Floor - p50Base).toFixed(2)} ms`] : []),
    ].join(' '),
  );
}

/** A kernel in a process of its own, with the profile the framework tests declare. */
async function frameworkKernelProcess(durability: 'full' | 'relaxed') {
  const forked = await forkKernel({ durability, inbox: false });
  const connection = { url: forked.url, token: forked.workspace.tokens.agent };
  await declareProfile(connection);
  return { connection, close: () => forked.close(), forked };
}

setTracingDisabled(true);
const cleanups: (() => void)[] = [];
const DURABILITY = process.env.DURABILITY === 'relaxed' ? 'relaxed' : 'full';
const OWN_PROCESS = process.env.KERNEL === 'process';
const k = OWN_PROCESS
  ? await frameworkKernelProcess(DURABILITY)
  : await startFrameworkKernel(undefined, { durability: DURABILITY });
/**
 * Serves `pairs` granted checks and their reports through an adapter's session (the requests every
 * variant makes), so that the kernel's code is as warm as a kernel's that has served for a while.
 * Answers the kernel's CPU per pair over the first and the last tenth, when it runs in its own
 * process and was warmed at all.
 */
async function warmKernel(pairs: number): Promise<{ first: number; last: number } | null> {
  if (pairs === 0) return null;
  const { session } = createAiSdkAirlock({
    ...k.connection,
    sessionId: 'warm-up',
    awaitReports: true,
  });
  const tenth = Math.max(1, Math.floor(pairs / 10));
  const forked = 'forked' in k ? k.forked : null;
  const cpu = { first: 0, last: 0 };
  let mark = forked ? await forked.cpuMs() : 0;
  for (let i = 0; i < pairs; i += 1) {
    const call = { name: 'lookup', input: { q: i }, callId: `w${i}` };
    const verdict = await session.check(call);
    if (verdict.verdict !== 'allow')
      throw new Error(`the warm-up call was not granted: ${verdict.reason}`);
    await session.ran(call, { ok: true, output: { q: i } });
    if (forked && (i + 1 === tenth || i + 1 === pairs - tenth)) {
      const now = await forked.cpuMs();
      if (i + 1 === tenth) cpu.first = (now - mark) / tenth;
      mark = now;
    }
  }
  if (!forked) return null;
  cpu.last = ((await forked.cpuMs()) - mark) / tenth;
  return cpu;
}

try {
  console.log(
    `granted call, ${CALLS} runs per variant (after ${WARMUP} warm-up), node ${process.version}, durability ${DURABILITY}, kernel ${OWN_PROCESS ? 'in a process of its own' : 'in this process'}`,
  );
  const warmed = await warmKernel(KERNEL_WARMUP);
  console.log(
    `kernel warmed with ${KERNEL_WARMUP} granted checks and reports${warmed ? `: its CPU per check and report ${warmed.first.toFixed(2)} ms over the first tenth, ${warmed.last.toFixed(2)} ms over the last` : ''}`,
  );
  // The floor goes the way the SDK sends in Node: node:http over a keep-alive agent.
  const agent = new HttpAgent({ keepAlive: true });
  const floorGet = () =>
    new Promise<void>((resolve, reject) => {
      const request = get(
        `${k.connection.url}/agent_api/v1/profile/configuration`,
        { agent, headers: { authorization: `Bearer ${k.connection.token}` } },
        (response) => {
          response.resume();
          response.on('end', resolve);
        },
      );
      request.on('error', reject);
    });
  const floor: number[] = [];
  for (let i = 0; i < WARMUP + CALLS; i += 1) {
    const started = performance.now();
    await floorGet();
    if (i >= WARMUP) floor.push(performance.now() - started);
  }
  agent.destroy();
  console.log(
    `kernel floor: one GET round trip on loopback (node:http, kept alive) p50 ${percentile(floor, 0.5).toFixed(2)} ms`,
  );
  const recordDir = mkdtempSync(join(tmpdir(), 'airlock-bench-record-'));
  const record = await startRecordServer({ file: join(recordDir, 'record.wal') });
  cleanups.push(() => {
    record.close();
    rmSync(recordDir, { recursive: true, force: true });
  });
  const askRecord = recordAsker(record.url);
  let asked = 0;
  const recordApproval: Approve = async () => {
    asked += 1;
    await askRecord({ tool: 'lookup', id: asked });
    return false;
  };
  // With KERNEL=process and PROFILE=FILE, a V8 CPU profile of the kernel over every variant.
  const profiling = OWN_PROCESS && process.env.PROFILE ? process.env.PROFILE : undefined;
  if (profiling && 'forked' in k) await k.forked.startProfile();
  for (const awaitReports of [false, true]) {
    console.log(
      awaitReports
        ? 'report awaited (awaitReports: true): two kernel round trips on the call path'
        : 'report behind the call (the default): one kernel round trip on the call path',
    );
    const session = (name: string) => ({
      ...k.connection,
      sessionId: `bench-${name}-${awaitReports}`,
      awaitReports,
    });
    // The floor (with the report behind the call): the framework's own approval function asking
    // a remote record server that answers after a 13-page fsync, one durable round trip.
    const floor = awaitReports ? undefined : recordApproval;
    const ai = createAiSdkAirlock(session('ai'));
    await compare(
      'ai 6',
      aiSdk((tools) => tools),
      aiSdk((tools) => ai.tools(tools)),
      () => ai.flush(),
      floor && aiSdk((tools) => tools, floor),
    );
    const agents = createOpenAIAgentsAirlock(session('agents'));
    await compare(
      '@openai/agents',
      openaiAgents((tools) => tools),
      openaiAgents((tools) => agents.tools(tools as never)),
      () => agents.flush(),
      floor && openaiAgents((tools) => tools, floor),
    );
    const lg = createLangGraphAirlock(session('langgraph'));
    await compare(
      'langgraph',
      langGraph((tools) => tools),
      langGraph((tools) => lg.tools(tools)),
      () => lg.flush(),
      floor && langGraph((tools) => tools, floor),
    );
  }
  if (profiling && 'forked' in k) await k.forked.stopProfile(profiling);
} finally {
  for (const cleanup of cleanups) cleanup();
  await k.close();
}
