import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { invalidValue } from './read-fields.ts';

// A forced tool choice must have a tool to force: `required` (Anthropic's `any`) needs
// tools, and a named function must be one of them. Providers answer such a request with
// an error about their own request, or ignore the choice; the gateway refuses it up front,
// in the client's terms, with `param: 'tool_choice'`.
//
// Tools a dialect drops (hosted or server tools no provider behind the gateway can run)
// are another matter: the client did declare them, so a choice forcing one of them is not
// an error but cannot be honoured either, and falls back to `auto`.

export interface ToolChoiceRule {
  /** How the dialect writes the `required` choice, for the message: `'required'`, `{type: 'any'}`. */
  required: string;
  /** The declared tools the dialect dropped (their names, when they have one); absent when none were. */
  dropped?: ReadonlySet<string>;
}

const AUTO: ToolChoice = { type: 'auto' };

/** The choice to carry (the same one, or `auto` for a dropped tool); throws when it forces a tool the request does not have. */
export function checkToolChoice(
  choice: ToolChoice | undefined,
  tools: readonly ToolDefinition[] | undefined,
  rule: ToolChoiceRule,
): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  const hasTools = tools !== undefined && tools.length > 0;
  switch (choice.type) {
    case 'auto':
    case 'none':
      return choice;
    case 'required':
      if (hasTools) return choice;
      if (rule.dropped !== undefined) return AUTO;
      throw invalidValue(
        'tool_choice',
        `${rule.required} forces a tool call, but the request has no 'tools'; send the tools, or use 'auto' or 'none'`,
      );
    case 'tool': {
      const name = choice.name;
      if (hasTools && tools.some((t) => t.name === name)) return choice;
      if (rule.dropped?.has(name) === true) return AUTO;
      if (!hasTools)
        throw invalidValue(
          'tool_choice',
          `names the function ${JSON.stringify(name)}, but the request has no 'tools'; send it in 'tools', or use 'auto' or 'none'`,
        );
      throw invalidValue('tool_choice', `names the function ${JSON.stringify(name)}, which is not in 'tools'`);
    }
  }
}
