import { drop } from '../../parameter-rules.ts';
import { CHAT_RULES } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/**
 * xAI (Grok). Live search: `search_parameters` passes through and the answer's `citations`
 * come back on the finish; `deferred` passes through too. Reasoning models take only
 * `low` or `high` efforts, so the others are mapped to the nearest of the two.
 */
export const XAI_PROFILE = defineProfile({
  name: 'xai',
  tasks: ['image'],
  vendor: 'xAI',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // Grok vision models take images; no file or audio parts in chat.
  input: ['image'],
  rules: {
    ...CHAT_RULES,
    prompt_cache_key: drop('xAI keys its cache on the x-grok-conv-id header, not a body field'),
    modalities: drop('xAI chat generates text only'),
    audio: drop('xAI chat generates text only'),
  },
  effortValues: { none: null, minimal: 'low', low: 'low', medium: 'high', high: 'high', xhigh: 'high', max: 'high' },
  passThrough: ['search_parameters', 'deferred'],
});
