import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeChatRequest } from './decode-chat-request.ts';
import { assertRequestError } from '../shared/assert-gateway-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';

const USER = [{ role: 'user', content: 'hi' }];
const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: true,
  },
};

function decode(extra: Record<string, unknown>) {
  return decodeChatRequest({ messages: USER, ...extra });
}
function rejects(extra: Record<string, unknown>, code: ErrorCode, param: string): void {
  assertRequestError(() => decode(extra), code, param);
}

describe('decodeChatRequest: tools', () => {
  it('maps function tools', () => {
    const req = decode({ tools: [WEATHER, { type: 'function', function: { name: 'now' } }] });
    assert.deepEqual(req.tools, [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: WEATHER.function.parameters,
        strict: true,
      },
      { name: 'now', parameters: { type: 'object', properties: {} } },
    ]);
  });

  it('rejects bad tool shapes', () => {
    rejects({ tools: {} }, 'invalid_parameter', 'tools');
    rejects({ tools: ['get_weather'] }, 'invalid_parameter', 'tools[0]');
    rejects({ tools: [{ function: { name: 'x' } }] }, 'missing_parameter', 'tools[0].type');
    rejects({ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'invalid_parameter', 'tools[0].type');
    rejects({ tools: [{ type: 'function' }] }, 'missing_parameter', 'tools[0].function');
    rejects({ tools: [WEATHER, { type: 'function', function: {} }] }, 'missing_parameter', 'tools[1].function.name');
    rejects({ tools: [{ type: 'function', function: { name: 3 } }] }, 'invalid_parameter', 'tools[0].function.name');
    rejects({ tools: [{ type: 'function', function: { name: '' } }] }, 'invalid_parameter', 'tools[0].function.name');
    rejects(
      { tools: [{ type: 'function', function: { name: 'x', parameters: 'object' } }] },
      'invalid_parameter',
      'tools[0].function.parameters',
    );
    rejects(
      { tools: [{ type: 'function', function: { name: 'x', description: 1 } }] },
      'invalid_parameter',
      'tools[0].function.description',
    );
    rejects({ tools: [{ type: 'function', function: { name: 'x', strict: 'yes' } }] }, 'invalid_parameter', 'tools[0].function.strict');
  });
});

describe('decodeChatRequest: tool_choice', () => {
  it('maps every form', () => {
    assert.deepEqual(decode({ tool_choice: 'auto' }).toolChoice, { type: 'auto' });
    assert.deepEqual(decode({ tool_choice: 'none' }).toolChoice, { type: 'none' });
    assert.deepEqual(decode({ tools: [WEATHER], tool_choice: 'required' }).toolChoice, { type: 'required' });
    assert.deepEqual(decode({ tools: [WEATHER], tool_choice: { type: 'function', function: { name: 'get_weather' } } }).toolChoice, {
      type: 'tool',
      name: 'get_weather',
    });
    assert.equal(decode({}).toolChoice, undefined);
  });

  it('rejects invalid values', () => {
    rejects({ tool_choice: 'any' }, 'invalid_parameter', 'tool_choice');
    rejects({ tool_choice: 1 }, 'invalid_parameter', 'tool_choice');
    rejects({ tool_choice: { type: 'tool', name: 'x' } }, 'invalid_parameter', 'tool_choice.type');
    rejects({ tool_choice: { type: 'function' } }, 'missing_parameter', 'tool_choice.function');
    rejects({ tool_choice: { type: 'function', function: {} } }, 'missing_parameter', 'tool_choice.function.name');
    rejects({ tool_choice: { type: 'function', function: { name: 5 } } }, 'invalid_parameter', 'tool_choice.function.name');
  });

  it('a forced choice needs the tool it forces: a named function must be in tools, required needs tools', () => {
    rejects({ tools: [WEATHER], tool_choice: { type: 'function', function: { name: 'get_time' } } }, 'invalid_parameter', 'tool_choice');
    rejects({ tool_choice: { type: 'function', function: { name: 'get_weather' } } }, 'invalid_parameter', 'tool_choice');
    rejects({ tools: [], tool_choice: { type: 'function', function: { name: 'get_weather' } } }, 'invalid_parameter', 'tool_choice');
    rejects({ tool_choice: 'required' }, 'invalid_parameter', 'tool_choice');
    rejects({ tools: [], tool_choice: 'required' }, 'invalid_parameter', 'tool_choice');
    assert.throws(
      () => decode({ tools: [WEATHER], tool_choice: { type: 'function', function: { name: 'get_time' } } }),
      /'tool_choice'.*"get_time", which is not in 'tools'/,
    );
    assert.throws(
      () => decode({ tool_choice: 'required' }),
      /'tool_choice'.*'required' forces a tool call, but the request has no 'tools'/,
    );
    // Choosing not to force a tool needs no tools.
    assert.deepEqual(decode({ tool_choice: 'auto' }).toolChoice, { type: 'auto' });
    assert.deepEqual(decode({ tool_choice: 'none' }).toolChoice, { type: 'none' });
  });
});

describe('decodeChatRequest: response_format', () => {
  it('maps text, json_object and json_schema', () => {
    assert.deepEqual(decode({ response_format: { type: 'text' } }).responseFormat, { type: 'text' });
    assert.deepEqual(decode({ response_format: { type: 'json_object' } }).responseFormat, { type: 'json_object' });
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.deepEqual(
      decode({ response_format: { type: 'json_schema', json_schema: { name: 'out', schema, strict: true, description: 'd' } } })
        .responseFormat,
      { type: 'json_schema', name: 'out', schema, strict: true, description: 'd' },
    );
  });

  it('rejects bad shapes', () => {
    rejects({ response_format: 'json' }, 'invalid_parameter', 'response_format');
    rejects({ response_format: {} }, 'missing_parameter', 'response_format.type');
    rejects({ response_format: { type: 'xml' } }, 'invalid_parameter', 'response_format.type');
    rejects({ response_format: { type: 'json_schema' } }, 'missing_parameter', 'response_format.json_schema');
    rejects({ response_format: { type: 'json_schema', json_schema: 'x' } }, 'invalid_parameter', 'response_format.json_schema');
    rejects(
      { response_format: { type: 'json_schema', json_schema: { schema: {} } } },
      'missing_parameter',
      'response_format.json_schema.name',
    );
    rejects(
      { response_format: { type: 'json_schema', json_schema: { name: 1, schema: {} } } },
      'invalid_parameter',
      'response_format.json_schema.name',
    );
    rejects(
      { response_format: { type: 'json_schema', json_schema: { name: 'n' } } },
      'missing_parameter',
      'response_format.json_schema.schema',
    );
    rejects(
      { response_format: { type: 'json_schema', json_schema: { name: 'n', schema: [] } } },
      'invalid_parameter',
      'response_format.json_schema.schema',
    );
    rejects(
      { response_format: { type: 'json_schema', json_schema: { name: 'n', schema: {}, strict: 'y' } } },
      'invalid_parameter',
      'response_format.json_schema.strict',
    );
  });
});
