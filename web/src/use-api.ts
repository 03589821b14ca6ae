import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** GET a path; reloads when the path changes or on `reload()`. */
export function useApi<T = any>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    api<T>('GET', path)
      .then((data) => { if (live) setState({ data, error: undefined, loading: false }); })
      .catch((err: Error) => { if (live) setState({ data: undefined, error: err.message, loading: false }); });
    return () => { live = false; };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
