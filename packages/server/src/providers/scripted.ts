import type {
  ModelProvider,
  ProviderRound,
  RoundRequest,
  ScriptedRound,
  SummaryRequest,
} from './types.js';
import { ProviderError } from './types.js';

/**
 * The scripted provider: plays the rounds listed in the run input, one per
 * round, and checks that each round was fed the text it `expect`s.
 */
export class ScriptedProvider implements ModelProvider {
  readonly inline = true;

  async nextRound(config: unknown, request: RoundRequest): Promise<ProviderRound> {
    const rounds = (config as { rounds: ScriptedRound[] }).rounds;
    const round = rounds[request.index];
    if (!round) {
      throw new ProviderError(
        'script_exhausted',
        `the script has ${rounds.length} rounds and no final answer for round ${request.index}`,
      );
    }
    const expected = round.expect === undefined ? [] : [round.expect].flat();
    const fedText = request.fed.map((f) => f.content).join('\n');
    const missing = expected.filter((text) => !fedText.includes(text));
    if (missing.length > 0) {
      throw new ProviderError(
        'script_expectation_failed',
        `round ${request.index} expected ${JSON.stringify(missing)} in what it was fed: ${JSON.stringify(fedText)}`,
      );
    }
    if ('final' in round) return { type: 'final', content: round.final };
    return {
      type: 'tool_calls',
      calls: round.tool_calls.map((call, i) => ({
        id: call.id ?? `call_${request.index}_${i}`,
        name: call.name,
        input: call.input ?? {},
        onFailure: call.on_failure,
      })),
    };
  }

  /** The script's `summary`, or a digest of the rounds it replaces. */
  async summarize(config: unknown, request: SummaryRequest): Promise<string> {
    const scripted = (config as { summary?: string }).summary;
    if (scripted !== undefined) return scripted;
    const calls = request.rounds.flatMap((round) => round.results.map((r) => r.tool_name));
    const first = request.rounds[0]?.round ?? 0;
    const last = request.rounds.at(-1)?.round ?? first;
    return `Summary of rounds ${first}-${last}: ${calls.length} call(s) (${calls.join(', ')}).`;
  }
}
