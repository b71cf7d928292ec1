import type { Decision } from '../schemas/approval.js';
import { LAYER_VERDICT_STRICTNESS, type LayerDecision } from '../schemas/layers.js';

function approvalRulesVerdict(decision: Decision): LayerDecision['verdict'] {
  if (decision.outcome === 'denied') return 'deny';
  if (decision.outcome === 'parked') return 'ask';
  return 'allow';
}

/**
 * Composes the declared rules' decision with what the other layers said: the
 * strictest verdict wins (deny > ask > allow); on a tie the declared rules
 * keep the decision, then the layers in the order given. The result records
 * every layer that applied, the deciding layer and all reminders.
 */
export function combineLayers(base: Decision, others: readonly LayerDecision[]): Decision {
  if (others.length === 0) return base;
  const baseLayer: LayerDecision = {
    layer: 'approval_rules',
    verdict: approvalRulesVerdict(base),
    rule: null,
    detail: base.error?.detail ?? null,
    reminders: [],
  };
  let winner = baseLayer;
  for (const layer of others) {
    if (LAYER_VERDICT_STRICTNESS[layer.verdict] > LAYER_VERDICT_STRICTNESS[winner.verdict]) {
      winner = layer;
    }
  }
  const reminders = others.flatMap((layer) => layer.reminders);
  const layers = [baseLayer, ...others];
  if (winner === baseLayer) return { ...base, layer: 'approval_rules', layers, reminders };
  const outcome = winner.verdict === 'deny' ? 'denied' : 'parked';
  return {
    ...base,
    outcome,
    granted_by: null,
    error:
      winner.verdict === 'deny'
        ? {
            code: 'approval_denied',
            detail: winner.detail ?? `denied by the ${winner.layer} layer`,
          }
        : null,
    layer: winner.layer,
    layers,
    reminders,
  };
}
