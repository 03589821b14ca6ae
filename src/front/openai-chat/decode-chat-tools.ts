import type { ResponseFormat, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import type { ToolChoiceRule } from '../shared/check-tool-choice.ts';
import {
  describeType,
  invalidType,
  invalidValue,
  isObject,
  missingParameter,
  readBoolean,
  readString,
  type JsonObject,
} from '../shared/read-fields.ts';

// `tools`, `tool_choice` and `response_format` of a chat request.

/** OpenAI lets `parameters` be omitted, meaning a function without arguments. */
function emptyParameters(): Record<string, unknown> {
  return { type: 'object', properties: {} };
}

export function decodeChatTools(raw: unknown): ToolDefinition[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw invalidType('tools', 'an array of tools', raw);
  const out: ToolDefinition[] = new Array<ToolDefinition>(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = decodeTool(raw[i], i);
  return out;
}

function decodeTool(tool: unknown, i: number): ToolDefinition {
  if (!isObject(tool)) throw invalidType(`tools[${i}]`, "an object {type: 'function', function}", tool);
  if (tool.type !== 'function') {
    if (tool.type === undefined || tool.type === null) throw missingParameter(`tools[${i}].type`);
    throw invalidValue(`tools[${i}].type`, `must be 'function', got ${JSON.stringify(tool.type)}`);
  }
  const fn = tool.function;
  if (fn === undefined || fn === null) throw missingParameter(`tools[${i}].function`);
  if (!isObject(fn)) throw invalidType(`tools[${i}].function`, 'an object {name, description?, parameters?}', fn);
  const name = fn.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingParameter(`tools[${i}].function.name`);
    throw invalidType(`tools[${i}].function.name`, 'a string', name);
  }
  if (name.length === 0) throw invalidValue(`tools[${i}].function.name`, 'must not be empty');
  const parameters = fn.parameters;
  let params: Record<string, unknown>;
  if (parameters === undefined || parameters === null) params = emptyParameters();
  else if (!isObject(parameters)) throw invalidType(`tools[${i}].function.parameters`, 'a JSON Schema object', parameters);
  else params = parameters;
  const out: ToolDefinition = { name, parameters: params };
  const description = fn.description;
  if (typeof description === 'string') out.description = description;
  else if (description !== undefined && description !== null) {
    throw invalidType(`tools[${i}].function.description`, 'a string', description);
  }
  const strict = fn.strict;
  if (typeof strict === 'boolean') out.strict = strict;
  else if (strict !== undefined && strict !== null) throw invalidType(`tools[${i}].function.strict`, 'a boolean', strict);
  return out;
}

const TOOL_CHOICE_RULE = "must be 'none', 'auto', 'required' or {type: 'function', function: {name}}";

/** `'required'` or a named function needs `tools` holding it (check-tool-choice.ts). */
export const CHAT_TOOL_CHOICE: ToolChoiceRule = { required: "'required'" };

export function decodeChatToolChoice(raw: unknown): ToolChoice | undefined {
  switch (raw) {
    case undefined:
    case null:
      return undefined;
    case 'auto':
      return { type: 'auto' };
    case 'none':
      return { type: 'none' };
    case 'required':
      return { type: 'required' };
  }
  if (!isObject(raw)) {
    if (typeof raw === 'string') throw invalidValue('tool_choice', `${TOOL_CHOICE_RULE}, got ${JSON.stringify(raw)}`);
    throw invalidType('tool_choice', "a string or an object {type: 'function', function: {name}}", raw);
  }
  if (raw.type !== 'function') throw invalidValue('tool_choice.type', `${TOOL_CHOICE_RULE}, got type ${JSON.stringify(raw.type ?? null)}`);
  const fn = raw.function;
  if (fn === undefined || fn === null) throw missingParameter('tool_choice.function');
  if (!isObject(fn)) throw invalidType('tool_choice.function', 'an object {name}', fn);
  const name = fn.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingParameter('tool_choice.function.name');
    throw invalidType('tool_choice.function.name', 'a string', name);
  }
  return { type: 'tool', name };
}

export function decodeChatResponseFormat(raw: unknown): ResponseFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalidType('response_format', "an object {type: 'text' | 'json_object' | 'json_schema'}", raw);
  switch (raw.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema':
      return decodeJsonSchema(raw);
    case undefined:
    case null:
      throw missingParameter('response_format.type');
    default:
      throw invalidValue('response_format.type', `must be 'text', 'json_object' or 'json_schema', got ${JSON.stringify(raw.type)}`);
  }
}

function decodeJsonSchema(raw: JsonObject): ResponseFormat {
  const js = raw.json_schema;
  if (js === undefined || js === null) throw missingParameter('response_format.json_schema');
  if (!isObject(js)) throw invalidType('response_format.json_schema', 'an object {name, schema, strict?}', js);
  const name = js.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingParameter('response_format.json_schema.name');
    throw invalidType('response_format.json_schema.name', 'a string', name);
  }
  const schema = js.schema;
  if (schema === undefined || schema === null) throw missingParameter('response_format.json_schema.schema');
  if (!isObject(schema)) {
    throw invalidValue('response_format.json_schema.schema', `expected a JSON Schema object, got ${describeType(schema)}`);
  }
  const out: ResponseFormat = { type: 'json_schema', name, schema };
  const strict = readBoolean(js, 'strict', 'response_format.json_schema');
  if (strict !== undefined) out.strict = strict;
  const description = readString(js, 'description', 'response_format.json_schema');
  if (description !== undefined) out.description = description;
  return out;
}
