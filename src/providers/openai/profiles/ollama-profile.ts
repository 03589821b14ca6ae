import { drop } from '../../parameter-rules.ts';
import { CHAT_RULES } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

// Ollama's OpenAI-compatible API (`http://127.0.0.1:11434/v1`) lists the fields it reads;
// the rest it ignores, so they are dropped here rather than claimed.
const IGNORED = "ignored by Ollama's OpenAI-compatible API";

export const OLLAMA_PROFILE = defineProfile({
  name: 'ollama',
  tasks: ['embedding'],
  vendor: 'Ollama',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // Vision models take images; no file or audio parts.
  input: ['image'],
  rules: {
    ...CHAT_RULES,
    logit_bias: drop(IGNORED),
    tool_choice: drop(IGNORED),
    parallel_tool_calls: drop(IGNORED),
    user: drop(IGNORED),
    prompt_cache_key: drop(IGNORED),
    modalities: drop('Ollama generates text only'),
    audio: drop('Ollama generates text only'),
  },
});
