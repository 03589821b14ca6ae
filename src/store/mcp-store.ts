import type { SqlRunner } from './webhook-store.ts';

// Accounts' own MCP servers (table account_mcp_servers) and the record of MCP tool calls
// (mcp_tool_calls), migration 20: one implementation over both engines, its SQL written once
// with `?` parameters (Postgres's runner numbers them). Times are ISO 8601 UTC text.

export interface AccountMcpServerRow {
  id: string;
  accountId: string;
  name: string;
  url: string;
  /** Sent to the server with every request; never answered back. */
  headers: Record<string, string>;
  /** The tools exposed (null: every tool the server lists). */
  tools: string[] | null;
  createdAt: string;
}

/** How a tool call ended: the tool's result, the tool's own error (`isError`), no answer, or refused by the gateway. */
export type McpCallStatus = 'ok' | 'tool_error' | 'failed' | 'refused';

export interface McpCallRow {
  id: string;
  at: string;
  accountId: string;
  keyHash: string;
  /** Null: the tool named no server the key may use. */
  server: string | null;
  tool: string;
  /** `endpoint`: through /mcp; `generation`: a model's turn the gateway ran the tool for. */
  via: 'endpoint' | 'generation';
  status: McpCallStatus;
  durationMs: number;
  error: string | null;
  generationId: string | null;
}

export interface McpCallFilter {
  accountId?: string;
  keyHash?: string;
  server?: string;
  status?: McpCallStatus;
}

/** A page's position: the last row's (at, id). */
export type McpCallCursor = [string, string];

export interface McpServerRepository {
  create(row: AccountMcpServerRow): Promise<void>;
  /** The account's servers, oldest first. */
  list(accountId: string): Promise<AccountMcpServerRow[]>;
  /** Every account's servers (the registry's view), oldest first. */
  listAll(): Promise<AccountMcpServerRow[]>;
  get(id: string): Promise<AccountMcpServerRow | undefined>;
  remove(id: string): Promise<boolean>;
}

export interface McpCallRepository {
  record(row: McpCallRow): Promise<void>;
  /** Newest first on (at, id), rows before `before`. */
  list(filter: McpCallFilter, before: McpCallCursor | null, limit: number): Promise<McpCallRow[]>;
}

function toServer(r: Record<string, unknown>): AccountMcpServerRow {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    name: r.name as string,
    url: r.url as string,
    headers: JSON.parse(r.headers as string) as Record<string, string>,
    tools: r.tools === null || r.tools === undefined ? null : (JSON.parse(r.tools as string) as string[]),
    createdAt: r.created_at as string,
  };
}

function toCall(r: Record<string, unknown>): McpCallRow {
  return {
    id: r.id as string,
    at: r.at as string,
    accountId: r.account_id as string,
    keyHash: r.key_hash as string,
    server: (r.server as string | null) ?? null,
    tool: r.tool as string,
    via: r.via as McpCallRow['via'],
    status: r.status as McpCallStatus,
    durationMs: Number(r.duration_ms),
    error: (r.error as string | null) ?? null,
    generationId: (r.generation_id as string | null) ?? null,
  };
}

export class SqlMcpServerRepository implements McpServerRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async create(s: AccountMcpServerRow): Promise<void> {
    await this.sql.run(
      'INSERT INTO account_mcp_servers (id, account_id, name, url, headers, tools, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [s.id, s.accountId, s.name, s.url, JSON.stringify(s.headers), s.tools === null ? null : JSON.stringify(s.tools), s.createdAt],
    );
  }

  async list(accountId: string): Promise<AccountMcpServerRow[]> {
    return (await this.sql.all('SELECT * FROM account_mcp_servers WHERE account_id = ? ORDER BY created_at, id', [accountId])).map(
      toServer,
    );
  }

  async listAll(): Promise<AccountMcpServerRow[]> {
    return (await this.sql.all('SELECT * FROM account_mcp_servers ORDER BY created_at, id', [])).map(toServer);
  }

  async get(id: string): Promise<AccountMcpServerRow | undefined> {
    const r = (await this.sql.all('SELECT * FROM account_mcp_servers WHERE id = ?', [id]))[0];
    return r === undefined ? undefined : toServer(r);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM account_mcp_servers WHERE id = ?', [id])) > 0;
  }
}

export class SqlMcpCallRepository implements McpCallRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async record(c: McpCallRow): Promise<void> {
    await this.sql.run(
      `INSERT INTO mcp_tool_calls (id, at, account_id, key_hash, server, tool, via, status, duration_ms, error, generation_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [c.id, c.at, c.accountId, c.keyHash, c.server, c.tool, c.via, c.status, c.durationMs, c.error, c.generationId],
    );
  }

  async list(filter: McpCallFilter, before: McpCallCursor | null, limit: number): Promise<McpCallRow[]> {
    const where: string[] = [];
    const params: Array<string | number> = [];
    if (filter.accountId !== undefined) {
      where.push('account_id = ?');
      params.push(filter.accountId);
    }
    if (filter.keyHash !== undefined) {
      where.push('key_hash = ?');
      params.push(filter.keyHash);
    }
    if (filter.server !== undefined) {
      where.push('server = ?');
      params.push(filter.server);
    }
    if (filter.status !== undefined) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (before !== null) {
      where.push('(at < ? OR (at = ? AND id < ?))');
      params.push(before[0], before[0], before[1]);
    }
    params.push(limit);
    const rows = await this.sql.all(
      `SELECT * FROM mcp_tool_calls ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
      ORDER BY at DESC, id DESC LIMIT ?`,
      params,
    );
    return rows.map(toCall);
  }
}
