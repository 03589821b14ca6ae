import Anthropic from 'anthropic-sdk-0x';
import { defineAnthropicSdkSuite } from './anthropic-sdk-cases.ts';

// A 0.x release of the official SDK (what most deployed code and Claude Code's bundled
// client are): `apiKey` goes as `x-api-key`, with `anthropic-version: 2023-06-01`.
defineAnthropicSdkSuite({
  name: '@anthropic-ai/sdk 0.x',
  Anthropic: Anthropic,
  expect: { authHeader: 'x-api-key', version: '2023-06-01' },
});
