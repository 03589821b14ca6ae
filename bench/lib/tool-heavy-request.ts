// A tool-heavy agent request, shaped like Claude Code's first request of a session
// (/work/shared/reference/wire-formats.md, "Claude Code"; test/clients/claude-code.ts): a long
// system prompt, 20 tools whose descriptions and JSON schemas come to ~30 KB, and a few turns
// (a user prompt, an assistant tool call, its result, a follow-up). Claude Code sends it in the
// Anthropic messages dialect; the bench sends the same content as an OpenAI chat request, so
// the bare proxy and the upstream (both chat-completions only) carry the same bytes and the
// gateway's share of the proxy's CPU compares like with like. Built deterministically (no
// randomness, no download): the same bytes on every run.

interface ToolSpec {
  name: string;
  summary: string;
  /** Property name → [JSON schema type, description]. */
  props: Record<string, [string, string]>;
  required: string[];
}

// Claude Code's tools by name, with what each does; the long usage notes Claude Code puts in
// each description are stood in for by USAGE_NOTES below (the sizes are what matter here).
const TOOLS: ToolSpec[] = [
  {
    name: 'Task',
    summary: 'Launch a new agent to handle complex, multi-step tasks autonomously.',
    props: {
      description: ['string', 'A short (3-5 word) description of the task'],
      prompt: ['string', 'The task for the agent to perform'],
      subagent_type: ['string', 'The type of specialized agent to use for this task'],
    },
    required: ['description', 'prompt', 'subagent_type'],
  },
  {
    name: 'Bash',
    summary: 'Executes a given bash command in a persistent shell session with optional timeout.',
    props: {
      command: ['string', 'The command to execute'],
      timeout: ['number', 'Optional timeout in milliseconds (max 600000)'],
      description: ['string', 'Clear, concise description of what this command does in 5-10 words'],
      run_in_background: ['boolean', 'Set to true to run this command in the background'],
    },
    required: ['command'],
  },
  {
    name: 'Glob',
    summary: 'Fast file pattern matching tool that works with any codebase size.',
    props: {
      pattern: ['string', 'The glob pattern to match files against'],
      path: ['string', 'The directory to search in. If not specified, the current working directory will be used.'],
    },
    required: ['pattern'],
  },
  {
    name: 'Grep',
    summary: 'A powerful search tool built on ripgrep.',
    props: {
      pattern: ['string', 'The regular expression pattern to search for in file contents'],
      path: ['string', 'File or directory to search in'],
      glob: ['string', 'Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}")'],
      output_mode: ['string', 'Output mode: "content", "files_with_matches" or "count"'],
      '-B': ['number', 'Number of lines to show before each match'],
      '-A': ['number', 'Number of lines to show after each match'],
      '-C': ['number', 'Number of lines to show before and after each match'],
      '-n': ['boolean', 'Show line numbers in output'],
      '-i': ['boolean', 'Case insensitive search'],
      type: ['string', 'File type to search (rg --type)'],
      head_limit: ['number', 'Limit output to the first N lines or entries'],
      multiline: ['boolean', 'Enable multiline mode where . matches newlines'],
    },
    required: ['pattern'],
  },
  {
    name: 'ExitPlanMode',
    summary: 'Use this tool when you are in plan mode and have finished presenting your plan and are ready to code.',
    props: { plan: ['string', 'The plan you came up with, that you want to run by the user for approval'] },
    required: ['plan'],
  },
  {
    name: 'Read',
    summary: 'Reads a file from the local filesystem.',
    props: {
      file_path: ['string', 'The absolute path to the file to read'],
      offset: ['number', 'The line number to start reading from'],
      limit: ['number', 'The number of lines to read'],
    },
    required: ['file_path'],
  },
  {
    name: 'Edit',
    summary: 'Performs exact string replacements in files.',
    props: {
      file_path: ['string', 'The absolute path to the file to modify'],
      old_string: ['string', 'The text to replace'],
      new_string: ['string', 'The text to replace it with (must be different from old_string)'],
      replace_all: ['boolean', 'Replace all occurences of old_string (default false)'],
    },
    required: ['file_path', 'old_string', 'new_string'],
  },
  {
    name: 'Write',
    summary: 'Writes a file to the local filesystem.',
    props: {
      file_path: ['string', 'The absolute path to the file to write (must be absolute, not relative)'],
      content: ['string', 'The content to write to the file'],
    },
    required: ['file_path', 'content'],
  },
  {
    name: 'NotebookEdit',
    summary: 'Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source.',
    props: {
      notebook_path: ['string', 'The absolute path to the Jupyter notebook file to edit'],
      cell_id: ['string', 'The ID of the cell to edit'],
      new_source: ['string', 'The new source for the cell'],
      cell_type: ['string', 'The type of the cell (code or markdown)'],
      edit_mode: ['string', 'The type of edit to make (replace, insert, delete)'],
    },
    required: ['notebook_path', 'new_source'],
  },
  {
    name: 'WebFetch',
    summary: 'Fetches content from a specified URL and processes it using an AI model.',
    props: { url: ['string', 'The URL to fetch content from'], prompt: ['string', 'The prompt to run on the fetched content'] },
    required: ['url', 'prompt'],
  },
  {
    name: 'TodoWrite',
    summary: 'Use this tool to create and manage a structured task list for your current coding session.',
    props: { todos: ['array', 'The updated todo list'] },
    required: ['todos'],
  },
  {
    name: 'WebSearch',
    summary: 'Allows Claude to search the web and use the results to inform responses.',
    props: {
      query: ['string', 'The search query to use'],
      allowed_domains: ['array', 'Only include search results from these domains'],
      blocked_domains: ['array', 'Never include search results from these domains'],
    },
    required: ['query'],
  },
  {
    name: 'BashOutput',
    summary: 'Retrieves output from a running or completed background bash shell.',
    props: {
      bash_id: ['string', 'The ID of the background shell to retrieve output from'],
      filter: ['string', 'Optional regular expression to filter the output lines'],
    },
    required: ['bash_id'],
  },
  {
    name: 'KillShell',
    summary: 'Kills a running background bash shell by its ID.',
    props: { shell_id: ['string', 'The ID of the background shell to kill'] },
    required: ['shell_id'],
  },
  {
    name: 'SlashCommand',
    summary: 'Execute a slash command within the main conversation.',
    props: { command: ['string', 'The slash command to execute with its arguments'] },
    required: ['command'],
  },
  {
    name: 'Skill',
    summary: 'Execute a skill within the main conversation.',
    props: { command: ['string', 'The skill name (no arguments)'] },
    required: ['command'],
  },
  {
    name: 'AskUserQuestion',
    summary: 'Use this tool when you need to ask the user questions during execution.',
    props: {
      questions: ['array', 'Questions to ask the user (1-4 questions)'],
      answers: ['object', 'User answers collected by the permission component'],
    },
    required: ['questions'],
  },
  {
    name: 'EnterPlanMode',
    summary: 'Use this tool to enter plan mode before a non-trivial implementation task.',
    props: { reason: ['string', 'Why plan mode is needed'] },
    required: [],
  },
  {
    name: 'ListMcpResourcesTool',
    summary: 'Lists available resources from configured MCP servers.',
    props: { server: ['string', 'Optional server name to filter resources by'] },
    required: [],
  },
  {
    name: 'ReadMcpResourceTool',
    summary: 'Reads a specific resource from an MCP server, identified by server name and resource URI.',
    props: { server: ['string', 'The MCP server name'], uri: ['string', 'The resource URI to read'] },
    required: ['server', 'uri'],
  },
];

const USAGE_NOTES = [
  'Usage notes:',
  '- Before using this tool, verify that the parent directory exists and that the path is absolute, not relative.',
  '- Always quote file paths that contain spaces with double quotes, and prefer the dedicated tools over shell commands for reading, searching and editing files.',
  '- When several independent calls are needed, make them in parallel in a single message; when they depend on each other, make them one after another.',
  '- Results longer than 30000 characters are truncated before they are returned to you; ask for a narrower range when that happens.',
  '- Never include secrets, credentials or personal data in the arguments; the user sees every call and its output in the terminal.',
  '- If the call fails, read the error, fix the arguments and try again instead of repeating the same call unchanged.',
].join('\n');

function toolDefinition(t: ToolSpec, i: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, [type, description]] of Object.entries(t.props)) {
    const prop: Record<string, unknown> = { type, description };
    if (type === 'array')
      prop.items = {
        type: 'object',
        properties: {
          content: { type: 'string', minLength: 1 },
          status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
          activeForm: { type: 'string', minLength: 1 },
        },
        required: ['content', 'status', 'activeForm'],
        additionalProperties: false,
      };
    if (type === 'object') prop.additionalProperties = { type: 'string' };
    properties[name] = prop;
  }
  // Claude Code's descriptions run from a line to several KB; these are ~1.2 KB on average.
  const notes = i % 3 === 0 ? `${USAGE_NOTES}\n\n${USAGE_NOTES}` : USAGE_NOTES;
  return {
    type: 'function',
    function: {
      name: t.name,
      description: `${t.summary}\n\n${notes}`,
      parameters: {
        type: 'object',
        properties,
        required: t.required,
        additionalProperties: false,
        $schema: 'http://json-schema.org/draft-07/schema#',
      },
    },
  };
}

const SYSTEM_PROMPT = [
  'You are Claude Code, an interactive CLI tool that helps users with software engineering tasks. Use the instructions below and the tools available to you to assist the user.',
  'IMPORTANT: Assist with defensive security tasks only. Refuse to create, modify, or improve code that may be used maliciously.',
  '# Tone and style\nYou should be concise, direct, and to the point. Your output will be displayed on a command line interface. Only use emojis if the user explicitly requests it.',
  '# Proactiveness\nYou are allowed to be proactive, but only when the user asks you to do something. Do what has been asked; nothing more, nothing less.',
  "# Following conventions\nWhen making changes to files, first understand the file's code conventions. Mimic code style, use existing libraries and utilities, and follow existing patterns.",
  '# Task Management\nYou have access to the TodoWrite tool to help you manage and plan tasks. Use it very frequently to track your tasks and give the user visibility into your progress.',
  '# Doing tasks\nThe user will primarily request you perform software engineering tasks: solving bugs, adding new functionality, refactoring code, explaining code, and more.',
  '# Tool usage policy\nWhen doing file search, prefer to use the Task tool in order to reduce context usage. You can call multiple tools in a single response.',
  "<env>\nWorking directory: /home/user/project\nIs directory a git repo: Yes\nPlatform: linux\nOS Version: Linux 6.8.0\nToday's date: 2026-11-27\n</env>",
].join('\n\n');

let cached: Record<string, unknown>[] | null = null;

/** The 20 tool definitions (OpenAI chat shape). */
export function toolHeavyTools(): Record<string, unknown>[] {
  cached ??= TOOLS.map(toolDefinition);
  return cached;
}

/** The request body: system prompt, tools, a user turn, a tool call and its result, a follow-up; streamed as Claude Code asks. */
export function toolHeavyBody(model: string, stream: boolean): string {
  const body: Record<string, unknown> = {
    model,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'Run the unit tests of this project and tell me which ones fail, with the first line of each failure.' },
      {
        role: 'assistant',
        content: 'I will run the test suite first.',
        tool_calls: [
          {
            id: 'call_bash_1',
            type: 'function',
            function: {
              name: 'Bash',
              arguments: JSON.stringify({ command: 'npm test 2>&1 | tail -40', description: 'Run the unit tests' }),
            },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_bash_1',
        content:
          '> project@1.0.0 test\n> node --test\n\n✔ parses the config (2.1ms)\n✖ settles the ledger (14.0ms)\n  AssertionError: expected 120n, got 119n\n✔ routes by weight (1.3ms)\nℹ tests 3\nℹ pass 2\nℹ fail 1',
      },
      { role: 'user', content: 'Good. Now look at the failing one and explain why it fails.' },
    ],
    tools: toolHeavyTools(),
    tool_choice: 'auto',
    max_tokens: 32000,
    temperature: 1,
  };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return JSON.stringify(body);
}
