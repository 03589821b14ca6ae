import { drop } from '../../parameter-rules.ts';
import { CHAT_RULES } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/**
 * DeepSeek. `deepseek-reasoner` always thinks and returns it as `reasoning_content`; cache
 * hits are reported as `prompt_cache_hit_tokens` (caching is automatic). JSON mode exists,
 * JSON schemas do not: a schema is sent as JSON mode.
 */
export const DEEPSEEK_PROFILE = defineProfile({
  name: 'deepseek',
  tasks: [],
  vendor: 'DeepSeek',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // DeepSeek's chat API takes text only.
  input: [],
  rules: {
    ...CHAT_RULES,
    seed: drop('not a DeepSeek parameter'),
    logit_bias: drop('not a DeepSeek parameter'),
    parallel_tool_calls: drop('not a DeepSeek parameter'),
    structured_outputs: drop('DeepSeek has JSON mode but no JSON schema'),
    reasoning: drop('deepseek-reasoner always reasons and takes no effort'),
    user: drop('not a DeepSeek parameter'),
    prompt_cache_key: drop('DeepSeek caches prompt prefixes automatically'),
    modalities: drop('DeepSeek generates text only'),
    audio: drop('DeepSeek generates text only'),
  },
});
