// Reading what the gateway recorded through its public API, as a client would, rather than
// from its tables: a schema change then breaks no test of behaviour.

/** A generation record from `GET /api/v1/generation?id=` (the `data` object), read with `key`. */
export async function generationRecord(origin: string, key: string, id: string): Promise<any> {
  const res = await fetch(`${origin}/api/v1/generation?id=${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { data?: unknown };
  if (res.status !== 200) throw new Error(`GET /api/v1/generation?id=${id}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}
