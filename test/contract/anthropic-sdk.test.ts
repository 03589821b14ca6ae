import Anthropic from '@anthropic-ai/sdk';
import { defineAnthropicSdkSuite } from './anthropic-sdk-cases.ts';

// The current major of the official SDK: `apiKey` goes as `Authorization: Bearer`, with
// `anthropic-version: 2026-10-21`.
defineAnthropicSdkSuite({
  name: '@anthropic-ai/sdk 1.x',
  Anthropic: Anthropic,
  expect: { authHeader: 'authorization', version: '2026-10-21' },
});
