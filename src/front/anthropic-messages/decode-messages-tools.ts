import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import type { ToolChoiceRule } from '../shared/check-tool-choice.ts';
import { describeType, invalidType, invalidValue, isObject, missingParameter, type JsonObject } from '../shared/read-fields.ts';
import { readCacheControl, TOOLS, type DecodeState } from './messages-decode-state.ts';

// `tools` and `tool_choice` of a messages request.
//
// A custom tool is `{name, description?, input_schema, cache_control?, strict?, type?: 'custom'}`;
// real clients add fields of their own (Claude Code: `defer_loading`,
// `eager_input_streaming`, ...), which are ignored. Anthropic's server and versioned tools
// (`web_search_20250305`, `bash_20250124`, ...) run inside Anthropic's API, which no other
// provider has: they are dropped, as the spec drops unsupported parameters.

/** `input_schema` left out: a tool without arguments. */
function emptySchema(): Record<string, unknown> {
  return { type: 'object', properties: {} };
}

/** `dropped` collects the names of the server tools dropped (their `name`, else their `type`). */
export function decodeMessagesTools(raw: unknown, state: DecodeState, dropped?: Set<string>): ToolDefinition[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw invalidType('tools', 'an array of tools', raw);
  const out: ToolDefinition[] = [];
  for (let i = 0; i < raw.length; i++) {
    const tool = decodeTool(raw[i], i, state);
    if (tool !== null) out.push(tool);
    else if (dropped !== undefined) {
      const server = raw[i] as JsonObject;
      dropped.add(typeof server.name === 'string' ? server.name : String(server.type));
    }
  }
  return out.length === 0 ? undefined : out;
}

function decodeTool(tool: unknown, i: number, state: DecodeState): ToolDefinition | null {
  if (!isObject(tool)) throw invalidType(`tools[${i}]`, 'a tool object {name, input_schema, description?}', tool);
  const type = tool.type;
  if (type !== undefined && type !== null && type !== 'custom') {
    if (typeof type !== 'string') throw invalidType(`tools[${i}].type`, 'a string', type);
    return null;
  }
  const name = tool.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingParameter(`tools[${i}].name`);
    throw invalidType(`tools[${i}].name`, 'a string', name);
  }
  if (name.length === 0) throw invalidValue(`tools[${i}].name`, 'must not be empty');
  const schema = tool.input_schema;
  let parameters: Record<string, unknown>;
  if (schema === undefined || schema === null) parameters = emptySchema();
  else if (!isObject(schema)) throw invalidType(`tools[${i}].input_schema`, 'a JSON Schema object', schema);
  else parameters = schema;
  const out: ToolDefinition = { name, parameters };
  const description = tool.description;
  if (typeof description === 'string') out.description = description;
  else if (description !== undefined && description !== null) throw invalidType(`tools[${i}].description`, 'a string', description);
  const strict = tool.strict;
  if (typeof strict === 'boolean') out.strict = strict;
  else if (strict !== undefined && strict !== null) throw invalidType(`tools[${i}].strict`, 'a boolean', strict);
  readCacheControl(tool, out, state, TOOLS, i);
  return out;
}

const TOOL_CHOICE_RULE = "must be one of 'auto', 'any', 'tool', 'none'";

/** `{type: 'any'}` or `{type: 'tool', name}` needs `tools` holding it (check-tool-choice.ts); `dropped` from decodeMessagesTools. */
export function messagesToolChoiceRule(dropped: ReadonlySet<string>): ToolChoiceRule {
  return dropped.size === 0 ? { required: "{type: 'any'}" } : { required: "{type: 'any'}", dropped };
}

/** `disable_parallel_tool_use` is ignored (the spec), for every choice. */
export function decodeMessagesToolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalidType('tool_choice', "an object {type: 'auto' | 'any' | 'tool' | 'none'}", raw);
  switch (raw.type) {
    case 'auto':
      return { type: 'auto' };
    case 'any':
      return { type: 'required' };
    case 'none':
      return { type: 'none' };
    case 'tool': {
      const name = raw.name;
      if (typeof name !== 'string') {
        if (name === undefined || name === null) throw missingParameter('tool_choice.name', "is required when type is 'tool'");
        throw invalidType('tool_choice.name', 'a string', name);
      }
      return { type: 'tool', name };
    }
    case undefined:
    case null:
      throw missingParameter('tool_choice.type');
    default:
      throw invalidValue(
        'tool_choice.type',
        `${TOOL_CHOICE_RULE}, got ${typeof raw.type === 'string' ? JSON.stringify(raw.type) : describeType(raw.type)}`,
      );
  }
}
