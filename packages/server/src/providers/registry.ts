import { GatewayProvider } from './gateway.js';
import { OpenAIProvider, type OpenAISettings } from './openai.js';
import { ScriptedProvider } from './scripted.js';
import type { ModelProvider } from './types.js';

/** The providers a kernel can run, by kind. */
export type ProviderRegistry = ReadonlyMap<string, ModelProvider>;

/** The default registry: `scripted`, `openai` (with the deployment's settings) and `gateway`. */
export function defaultProviders(openai: OpenAISettings = {}): ProviderRegistry {
  return new Map<string, ModelProvider>([
    ['scripted', new ScriptedProvider()],
    ['openai', new OpenAIProvider(openai)],
    ['gateway', new GatewayProvider()],
  ]);
}
