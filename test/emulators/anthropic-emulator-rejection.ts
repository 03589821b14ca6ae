import type { IncomingHttpHeaders } from 'node:http';

// What the real Messages API rejects, and its messages (abridged): the Anthropic emulator
// answers these requests with the same 400/401, so tests of the gateway's side mean something.

const MAX_CACHE_CONTROL_BLOCKS = 4;

/** The 400/401 the real API would answer this request with, or null. */
export function rejection(headers: IncomingHttpHeaders, body: any): { status: number; message: string } | null {
  if (headers['x-api-key'] === undefined && headers.authorization === undefined)
    return { status: 401, message: 'x-api-key header is required' };
  const bad = (message: string) => ({ status: 400, message });
  if (headers['anthropic-version'] === undefined) return bad('anthropic-version: header is required');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('There was an error parsing the body of your request.');
  if (typeof body.model !== 'string') return bad('model: Field required');
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return bad('max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return bad('messages: at least one message is required');
  if (typeof body.temperature === 'number' && (body.temperature < 0 || body.temperature > 1))
    return bad('temperature: Input should be less than or equal to 1');
  if (body.tool_choice !== undefined && !Array.isArray(body.tools))
    return bad('tool_choice: tool_choice may only be specified while providing tools');

  let cacheBlocks = 0;
  const countCache = (block: any): void => {
    if (block?.cache_control !== undefined) cacheBlocks++;
  };
  if (Array.isArray(body.system)) body.system.forEach(countCache);
  if (Array.isArray(body.tools)) body.tools.forEach(countCache);

  let previousToolUses: string[] = [];
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i];
    if (m?.role !== 'user' && m?.role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(content) || (content.length === 0 && i < body.messages.length - 1)) {
      return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    const results = content.filter((b: any) => b?.type === 'tool_result').map((b: any) => b.tool_use_id);
    for (const id of results) {
      if (!previousToolUses.includes(id))
        return bad(
          `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
    }
    for (const id of previousToolUses) {
      if (!results.includes(id))
        return bad(`messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${id}`);
    }
    previousToolUses = [];
    let sawOther = false;
    for (let j = 0; j < content.length; j++) {
      const b = content[j];
      countCache(b);
      if (b?.type === 'text' && (typeof b.text !== 'string' || b.text.length === 0))
        return bad('messages: text content blocks must be non-empty');
      if (b?.type === 'thinking' && typeof b.signature !== 'string')
        return bad(`messages.${i}.content.${j}.thinking.signature: Field required`);
      if (b?.type === 'tool_use') {
        if (!Array.isArray(body.tools)) return bad('Requests which include `tool_use` or `tool_result` blocks must define tools.');
        if (m.role !== 'assistant') return bad(`messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`);
        if (!/^[a-zA-Z0-9_-]+$/.test(String(b.id)))
          return bad(`messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
        previousToolUses.push(b.id);
      }
      if (b?.type !== 'tool_result') sawOther = true;
      else if (sawOther) return bad(`messages.${i}.content.${j}: tool_result blocks must come before any other content`);
    }
  }
  if (cacheBlocks > MAX_CACHE_CONTROL_BLOCKS)
    return bad(`A maximum of ${MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided. Found ${cacheBlocks}.`);

  const thinking = body.thinking;
  if (thinking?.type === 'enabled') {
    if (!Number.isInteger(thinking.budget_tokens) || thinking.budget_tokens < 1024)
      return bad('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    const interleaved = String(headers['anthropic-beta'] ?? '')
      .split(',')
      .includes('interleaved-thinking-2025-05-14');
    if (!interleaved && thinking.budget_tokens >= body.max_tokens)
      return bad('`max_tokens` must be greater than `thinking.budget_tokens`.');
    if (body.temperature !== undefined && body.temperature !== 1)
      return bad('`temperature` may only be set to 1 when thinking is enabled.');
    if (body.top_k !== undefined) return bad('`top_k` is not supported when thinking is enabled.');
    if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool')
      return bad('Thinking may not be enabled when tool_choice forces tool use.');
    const lastAssistant = [...body.messages].reverse().find((m: any) => m.role === 'assistant');
    const blocks = Array.isArray(lastAssistant?.content) ? lastAssistant.content : [];
    if (blocks.some((b: any) => b?.type === 'tool_use') && blocks[0]?.type !== 'thinking' && blocks[0]?.type !== 'redacted_thinking') {
      return bad(
        `Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`,
      );
    }
  }
  return null;
}
