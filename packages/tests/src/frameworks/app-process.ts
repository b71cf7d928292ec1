/*
 * One life of an application built on a framework, as its own Node.js
 * process (see app-restart.test.ts): `park` runs the framework until Airlock
 * parks its call and saves the framework's state to a file; `resume` reads
 * that state in a fresh process and goes on once a person decided. The same
 * two steps apart (resume-elsewhere.test.ts): `decide` only answers the saved
 * state's parks from Airlock's decisions and saves it again, and `run` goes on
 * from the saved state without asking for decisions (LangGraph has no such
 * step: its `run` is its `resume`).
 * Usage: node --conditions=source --import tsx app-process.ts FRAMEWORK PHASE STATE_FILE
 * (env AIRLOCK_URL, AIRLOCK_TOKEN, SESSION_ID). Prints one JSON line: the
 * tools that ran in this process, and the final text when there is one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ModelMessage } from 'ai';

// Each framework (and its Airlock adapter) is loaded by its own function only: a process loads
// one framework, not all three (about a second of start-up less on every process a test starts).
const [framework, phase, stateFile] = process.argv.slice(2) as [string, string, string];
const connection = {
  url: process.env.AIRLOCK_URL as string,
  token: process.env.AIRLOCK_TOKEN as string,
  sessionId: process.env.SESSION_ID as string,
};
const EMAIL = { call: { id: 'p1', name: 'send_email', input: { to: 'a@b.c' } } };
const DONE = { text: 'sent after restart' };

async function aiSdk(): Promise<{ ran: string[]; text?: string }> {
  const { createAiSdkAirlock } = await import('@airlock/sdk/ai');
  const { generateText } = await import('ai');
  const { appTools, scriptedModel, USER } = await import('./ai-sdk-app.js');
  const airlock = createAiSdkAirlock(connection);
  const app = appTools();
  if (phase === 'park') {
    const first = await generateText({
      model: scriptedModel([EMAIL]).model,
      tools: airlock.tools(app.tools),
      messages: USER,
    });
    writeFileSync(stateFile, JSON.stringify([...USER, ...first.response.messages]));
    return { ran: app.ran };
  }
  const tools = airlock.tools(app.tools);
  const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as ModelMessage[];
  const messages = phase === 'run' ? saved : (await airlock.resume(saved)).messages;
  if (phase === 'decide') {
    writeFileSync(stateFile, JSON.stringify(messages));
    return { ran: app.ran };
  }
  const second = await generateText({ model: scriptedModel([DONE]).model, tools, messages });
  await airlock.finish(second.text);
  return { ran: app.ran, text: second.text };
}

async function openaiAgents(): Promise<{ ran: string[]; text?: string }> {
  const { createOpenAIAgentsAirlock } = await import('@airlock/sdk/openai-agents');
  const { RunState, run, setTracingDisabled } = await import('@openai/agents');
  const { appAgent, ScriptedModel } = await import('./openai-agents-app.js');
  setTracingDisabled(true);
  const airlock = createOpenAIAgentsAirlock(connection);
  if (phase === 'park') {
    const app = appAgent(airlock, new ScriptedModel([EMAIL]));
    const first = await run(app.agent, 'do the thing');
    writeFileSync(stateFile, first.state.toString());
    return { ran: app.ran };
  }
  const app = appAgent(airlock, new ScriptedModel([DONE]));
  const state = await RunState.fromString(app.agent, readFileSync(stateFile, 'utf8'));
  if (phase !== 'run') await airlock.resume(state);
  if (phase === 'decide') {
    writeFileSync(stateFile, state.toString());
    return { ran: app.ran };
  }
  const second = await run(app.agent, state);
  await airlock.finish(String(second.finalOutput));
  return { ran: app.ran, text: String(second.finalOutput) };
}

async function langGraph(): Promise<{ ran: string[]; text?: string }> {
  const { createLangGraphAirlock } = await import('@airlock/sdk/langgraph');
  const { Command, MemorySaver } = await import('@langchain/langgraph');
  const { appGraph, input, loadCheckpoints, saveCheckpoints, thread } = await import(
    './langgraph-app.js'
  );
  const airlock = createLangGraphAirlock(connection);
  if (phase === 'park') {
    const saver = new MemorySaver();
    const app = appGraph(airlock, [EMAIL], saver);
    await app.graph.invoke(input, thread('restart'));
    writeFileSync(stateFile, saveCheckpoints(saver));
    return { ran: app.ran };
  }
  const app = appGraph(airlock, [DONE], loadCheckpoints(readFileSync(stateFile, 'utf8')));
  const out = await app.graph.invoke(new Command({ resume: 'decided' }), thread('restart'));
  const text = String(out.messages.at(-1)?.content);
  await airlock.finish(text);
  return { ran: app.ran, text };
}

const apps: Record<string, () => Promise<{ ran: string[]; text?: string }>> = {
  'ai-sdk': aiSdk,
  'openai-agents': openaiAgents,
  langgraph: langGraph,
};
const app = apps[framework];
const phases =
  framework === 'langgraph' ? ['park', 'resume', 'run'] : ['park', 'resume', 'decide', 'run'];
if (!app || !phases.includes(phase)) {
  console.error(
    'usage: app-process.ts ai-sdk|openai-agents|langgraph park|resume|decide|run STATE_FILE',
  );
  process.exit(2);
}
console.log(JSON.stringify({ pid: process.pid, ...(await app()) }));
