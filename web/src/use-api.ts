import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** GET a path; reloads when the path changes or on `reload()`. */
export function useApi<T = unknown>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    api<T>('GET', path)
      .then((data) => {
        if (live) setState({ data, error: undefined, loading: false });
      })
      .catch((err: Error) => {
        if (live) setState({ data: undefined, error: err.message, loading: false });
      });
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/**
 * GET every page of a keyset-paged list (following `next_cursor`, at most `maxPages`), their
 * `data` joined: for lists bounded by design, such as the usage of an account's keys.
 */
export function useAllPages<R>(path: string | null, maxPages = 10): Loaded<{ data: R[] }> {
  const [state, setState] = useState<{ data: { data: R[] } | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    const sep = path.includes('?') ? '&' : '?';
    (async () => {
      const rows: R[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < maxPages; i++) {
        const page: { data: R[]; next_cursor?: string | null } = await api(
          'GET',
          cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`,
        );
        rows.push(...page.data);
        cursor = page.next_cursor ?? null;
        if (cursor === null) break;
      }
      return rows;
    })()
      .then((data) => {
        if (live) setState({ data: { data }, error: undefined, loading: false });
      })
      .catch((err: Error) => {
        if (live) setState({ data: undefined, error: err.message, loading: false });
      });
    return () => {
      live = false;
    };
  }, [path, tick, maxPages]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
