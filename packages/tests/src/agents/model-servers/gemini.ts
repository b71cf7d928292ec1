import type { ServerResponse } from 'node:http';
import {
  type ModelServer,
  type ScriptStep,
  startEventStream,
  startScriptedServer,
  writeEvent,
} from './scripted-server.js';

interface GenerateBody {
  tools?: Array<{ functionDeclarations?: Array<{ name?: string }> }>;
  generationConfig?: {
    responseMimeType?: string;
    responseJsonSchema?: unknown;
    responseSchema?: unknown;
  };
}

type Part =
  | { text: string }
  | { functionCall: { id?: string; name: string; args: Record<string, unknown> } };

function partFor(step: ScriptStep, index: number): Part {
  if (step.kind === 'text') return { text: step.text };
  const id = `call_scripted_${String(index).padStart(4, '0')}`;
  if (step.kind === 'shell')
    return { functionCall: { id, name: 'run_shell_command', args: { command: step.command } } };
  return { functionCall: { id, name: step.name, args: step.input } };
}

function candidate(part: Part) {
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'gemini-scripted',
  };
}

/** A side call asking for JSON (next-speaker check, routing): answer with a user-turn verdict. */
function jsonAnswer(): Part {
  return {
    text: JSON.stringify({
      reasoning: 'scripted',
      next_speaker: 'user',
      model_choice: 'flash',
      complexity_reasoning: 'scripted',
      complexity_score: 10,
    }),
  };
}

function send(response: ServerResponse, stream: boolean, part: Part): void {
  if (stream) {
    startEventStream(response);
    writeEvent(response, candidate(part));
    response.end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(candidate(part)));
}

interface GeminiContent {
  parts?: Array<{ functionResponse?: { id?: string; name?: string; response?: unknown } }>;
}

function readToolResults(body: unknown): Array<{ id: string; output: string }> {
  const contents = ((body ?? {}) as { contents?: GeminiContent[] }).contents ?? [];
  const results: Array<{ id: string; output: string }> = [];
  for (const content of contents) {
    for (const part of content.parts ?? []) {
      const response = part.functionResponse;
      if (response?.id)
        results.push({ id: response.id, output: JSON.stringify(response.response ?? {}) });
    }
  }
  return results;
}

/**
 * A scripted Gemini API server (what Gemini CLI speaks through GOOGLE_GEMINI_BASE_URL):
 * `models/<m>:streamGenerateContent?alt=sse` and `:generateContent`. A request declaring
 * `run_shell_command` is a main turn.
 */
export function startGeminiServer(script: ScriptStep[]): Promise<ModelServer> {
  return startScriptedServer(
    script,
    async ({ request, response, body, nextStep }) => {
      const path = request.url ?? '';
      const stream = path.includes(':streamGenerateContent');
      if (path.includes(':countTokens')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ totalTokens: 10 }));
        return { main: false };
      }
      if (!stream && !path.includes(':generateContent')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: { code: 404, message: `no route ${path}`, status: 'NOT_FOUND' },
          }),
        );
        return { main: false };
      }
      const generate = (body ?? {}) as GenerateBody;
      const main = (generate.tools ?? []).some((tool) =>
        (tool.functionDeclarations ?? []).some(
          (declaration) => declaration.name === 'run_shell_command',
        ),
      );
      if (!main) {
        const wantsJson = generate.generationConfig?.responseMimeType === 'application/json';
        send(response, stream, wantsJson ? jsonAnswer() : { text: 'ok' });
        return { main: false };
      }
      const { step, index } = await nextStep();
      send(response, stream, partFor(step, index));
      return { main, step: index };
    },
    readToolResults,
  );
}
