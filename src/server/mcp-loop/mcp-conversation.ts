import type { AssistantContentPart, CanonicalRequest, Message, ToolResultPart } from '../../canonical/request.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { McpToolSet } from './resolve-mcp-tools.ts';

// What a request that runs MCP tools carries from one model turn to the next.

/** The conversation as it grows turn by turn, and each turn's request. */
export class McpLoop {
  private readonly req: CanonicalRequest;
  private readonly set: McpToolSet;
  private readonly maxTurns: number;
  private readonly messages: Message[];
  private turns = 0;

  constructor(req: CanonicalRequest, set: McpToolSet, maxTurns: number) {
    this.req = req;
    this.set = set;
    this.maxTurns = maxTurns;
    this.messages = [...req.messages];
  }

  /** The next turn's request: the client's, its tools and the MCP tools, the conversation so far. */
  turnRequest(): CanonicalRequest {
    this.turns++;
    const { mcp: _mcp, ...rest } = this.req;
    const turn: CanonicalRequest = {
      ...rest,
      models: this.req.models.map((m) => ({ ...m })),
      messages: [...this.messages],
      extra: { ...this.req.extra },
    };
    const tools = [...(this.req.tools ?? []), ...this.set.tools];
    if (tools.length > 0) turn.tools = tools;
    // The last turn allowed may call no tool: its answer is the one returned.
    if (this.turns >= this.maxTurns && tools.length > 0) turn.toolChoice = { type: 'none' };
    return turn;
  }

  addTurn(content: AssistantContentPart[], results: ToolResultPart[]): void {
    this.messages.push({ role: 'assistant', content }, { role: 'tool', content: results });
  }
}

/** Every turn's usage added up: the answer reports what all its turns used. */
export class UsageSum {
  private sum: Usage | null = null;

  add(u: Usage): void {
    const s = this.sum;
    if (s === null) {
      const { raw: _raw, ...copy } = u;
      this.sum = copy;
      return;
    }
    s.input += u.input;
    s.output += u.output;
    s.cacheRead += u.cacheRead;
    s.cacheWrite += u.cacheWrite;
    s.reasoning += u.reasoning;
  }

  total(): Usage {
    return this.sum === null ? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 } : { ...this.sum };
  }
}
