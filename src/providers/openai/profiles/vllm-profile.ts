import { drop } from '../../parameter-rules.ts';
import { CHAT_RULES, SELF_HOSTED_SAMPLING } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/** vLLM's OpenAI-compatible server: the key is the one it was started with (`--api-key`), if any. */
export const VLLM_PROFILE = defineProfile({
  name: 'vllm',
  tasks: ['embedding', 'transcription'],
  vendor: 'vLLM',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // Multimodal models take image_url and input_audio parts; no `file` parts.
  input: ['image', 'audio'],
  rules: {
    ...CHAT_RULES,
    ...SELF_HOSTED_SAMPLING,
    prompt_cache_key: drop('vLLM caches prompt prefixes automatically and has no such field'),
    modalities: drop('vLLM generates text only'),
    audio: drop('vLLM generates text only'),
  },
});
