import { useEffect, useState } from 'preact/hooks';
import { BASE } from './api.ts';

// Client routes under <base>/dashboard/: the gateway answers index.html for each of them.

const ROOT = `${BASE}/dashboard/`;

export function currentRoute(): string {
  const p = location.pathname;
  return p.startsWith(ROOT) ? p.slice(ROOT.length).replace(/\/$/, '') : '';
}

export function href(route: string): string {
  return ROOT + route;
}

export function navigate(route: string): void {
  history.pushState(null, '', href(route));
  dispatchEvent(new Event('sy-route'));
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const update = (): void => setRoute(currentRoute());
    addEventListener('popstate', update);
    addEventListener('sy-route', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('sy-route', update);
    };
  }, []);
  return route;
}
