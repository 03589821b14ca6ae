import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { convertToGeminiSchema, isEmptyObjectSchema } from './convert-to-gemini-schema.ts';
import type { GeminiFunctionDeclaration, GeminiToolConfig } from './gemini-wire-types.ts';

/** Tools as one `functionDeclarations` list; `strict` and cache hints have no Gemini field. */
export function convertToGeminiTools(tools: readonly ToolDefinition[]): Array<{ functionDeclarations: GeminiFunctionDeclaration[] }> {
  const declarations = new Array<GeminiFunctionDeclaration>(tools.length);
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i]!;
    const declaration: GeminiFunctionDeclaration = { name: tool.name };
    if (tool.description !== undefined) declaration.description = tool.description;
    // Gemini refuses an object schema without properties; a function without parameters has none.
    if (!isEmptyObjectSchema(tool.parameters)) declaration.parameters = convertToGeminiSchema(tool.parameters);
    declarations[i] = declaration;
  }
  return [{ functionDeclarations: declarations }];
}

/** `auto` → AUTO, `none` → NONE, `required` → ANY, one tool → ANY limited to its name. */
export function convertToGeminiToolConfig(choice: ToolChoice): GeminiToolConfig {
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
    default:
      return assertNever(choice);
  }
}
