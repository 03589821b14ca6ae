import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeChatRequest } from './decode-chat-request.ts';
import { assertRequestError } from '../shared/assert-gateway-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';

const USER = [{ role: 'user', content: 'hi' }];

function decode(extra: Record<string, unknown>) {
  return decodeChatRequest({ messages: USER, ...extra });
}
function rejects(extra: Record<string, unknown>, code: ErrorCode, param: string): void {
  assertRequestError(() => decode(extra), code, param);
}

describe('decodeChatRequest: reasoning', () => {
  it('maps the reasoning object', () => {
    assert.deepEqual(decode({ reasoning: { effort: 'high', max_tokens: 2048, enabled: true, exclude: true } }).reasoning, {
      effort: 'high',
      maxTokens: 2048,
      enabled: true,
      exclude: true,
    });
    assert.deepEqual(decode({ reasoning: {} }).reasoning, {});
    for (const effort of ['minimal', 'none', 'low', 'medium', 'xhigh']) {
      assert.equal(decode({ reasoning: { effort } }).reasoning?.effort, effort);
    }
    assert.equal(decode({ reasoning: { max_tokens: 0 } }).reasoning?.maxTokens, 0);
  });

  it('rejects bad reasoning fields', () => {
    rejects({ reasoning: 'high' }, 'invalid_parameter', 'reasoning');
    rejects({ reasoning: { effort: 'extreme' } }, 'invalid_parameter', 'reasoning.effort');
    rejects({ reasoning: { max_tokens: -1 } }, 'invalid_parameter', 'reasoning.max_tokens');
    rejects({ reasoning: { max_tokens: 1.5 } }, 'invalid_parameter', 'reasoning.max_tokens');
    rejects({ reasoning: { enabled: 'yes' } }, 'invalid_parameter', 'reasoning.enabled');
    rejects({ reasoning: { exclude: 1 } }, 'invalid_parameter', 'reasoning.exclude');
  });

  it('maps reasoning_effort to reasoning.effort', () => {
    assert.deepEqual(decode({ reasoning_effort: 'low' }).reasoning, { effort: 'low' });
    assert.deepEqual(decode({ reasoning_effort: 'low', reasoning: { effort: 'high' } }).reasoning, { effort: 'high' });
    rejects({ reasoning_effort: 'turbo' }, 'invalid_parameter', 'reasoning_effort');
  });

  it('maps thinking_config onto reasoning', () => {
    assert.deepEqual(decode({ thinking_config: { thinking_budget: 1024, include_thoughts: false } }).reasoning, {
      maxTokens: 1024,
      exclude: true,
    });
    assert.deepEqual(decode({ thinking_config: { include_thoughts: true, thinking_level: 'HIGH' } }).reasoning, {
      effort: 'high',
      exclude: false,
    });
    assert.deepEqual(decode({ thinking_config: { thinking_budget: 0 } }).reasoning, { enabled: false });
    assert.deepEqual(decode({ thinking_config: { thinking_budget: -1 } }).reasoning, { enabled: true });
    // The reasoning object wins where both set a field.
    assert.deepEqual(
      decode({ reasoning: { max_tokens: 500 }, thinking_config: { thinking_budget: 9000, thinking_level: 'low' } }).reasoning,
      {
        maxTokens: 500,
        effort: 'low',
      },
    );
  });

  it('rejects bad thinking_config fields', () => {
    rejects({ thinking_config: true }, 'invalid_parameter', 'thinking_config');
    rejects({ thinking_config: { thinking_budget: -2 } }, 'invalid_parameter', 'thinking_config.thinking_budget');
    rejects({ thinking_config: { thinking_budget: 'lots' } }, 'invalid_parameter', 'thinking_config.thinking_budget');
    rejects({ thinking_config: { thinking_level: 'max-ish' } }, 'invalid_parameter', 'thinking_config.thinking_level');
    rejects({ thinking_config: { thinking_level: 3 } }, 'invalid_parameter', 'thinking_config.thinking_level');
    rejects({ thinking_config: { include_thoughts: 'no' } }, 'invalid_parameter', 'thinking_config.include_thoughts');
  });
});

describe('decodeChatRequest: parameters refused while reasoning is enabled', () => {
  const enabled: Array<Record<string, unknown>> = [
    { reasoning: {} },
    { reasoning: { effort: 'high' } },
    { reasoning: { max_tokens: 1000 } },
    { reasoning: { enabled: true } },
    { reasoning_effort: 'medium' },
    { thinking_config: { thinking_budget: 1024 } },
    { thinking_config: { include_thoughts: true } },
  ];
  const disabled: Array<Record<string, unknown>> = [
    {},
    { reasoning: { enabled: false } },
    { reasoning: { effort: 'none' } },
    { reasoning_effort: 'none' },
    { thinking_config: { thinking_budget: 0 } },
  ];
  const forced = [{ type: 'function', function: { name: 'f' } }, 'required'];
  const TOOLS = [{ type: 'function', function: { name: 'f' } }];

  it('top_k with reasoning enabled → reasoning_conflict', () => {
    for (const r of enabled) rejects({ ...r, top_k: 40 }, 'reasoning_conflict', 'top_k');
    for (const r of disabled) assert.equal(decode({ ...r, top_k: 40 }).sampling.topK, 40);
  });

  it('a forced tool_choice with reasoning enabled → reasoning_conflict', () => {
    for (const r of enabled) {
      for (const tool_choice of forced) rejects({ ...r, tools: TOOLS, tool_choice }, 'reasoning_conflict', 'tool_choice');
      decode({ ...r, tool_choice: 'auto' });
      decode({ ...r, tool_choice: 'none' });
    }
    for (const r of disabled) for (const tool_choice of forced) decode({ ...r, tools: TOOLS, tool_choice });
  });
});
