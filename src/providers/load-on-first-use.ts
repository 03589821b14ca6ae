/**
 * `load` run on the first call, its promise shared by every caller after; a failed load is
 * forgotten, so the next call tries again. For the cloud libraries a provider loads on its
 * first request rather than at start (Bedrock's signing, Vertex's credentials).
 */
export function loadOnFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = null;
      throw err;
    });
    return loading;
  };
}
