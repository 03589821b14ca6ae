import { drop, rename } from '../../parameter-rules.ts';
import { CHAT_RULES } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/**
 * Azure OpenAI: one deployment per model (the endpoint's upstream model is the deployment
 * name), an `api-key` header, and an `api-version` query parameter from the provider's
 * `options.api_version` (default below). Reasoning efforts need a preview api-version.
 */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

export const AZURE_PROFILE = defineProfile({
  name: 'azure',
  tasks: ['embedding', 'image', 'speech', 'transcription'],
  vendor: 'Azure OpenAI',
  auth: 'api-key',
  route: 'azure-deployment',
  streamOptions: true,
  // GA api-versions take text and images; files and audio input need a preview one.
  previewInput: ['file', 'audio'],
  input: ['image'],
  rules: {
    ...CHAT_RULES,
    max_tokens: rename('max_completion_tokens'),
    prompt_cache_key: drop('not accepted by Azure OpenAI api-versions; Azure caches prompt prefixes on its own'),
  },
});
