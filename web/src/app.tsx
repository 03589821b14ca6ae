import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api, setCsrfToken, whenUnauthorized } from './api.ts';
import { href, navigate, useRoute } from './router.ts';
import { SignIn, type SingleSignOn } from './pages/sign-in.tsx';
import { Overview } from './pages/overview.tsx';
import { Keys } from './pages/keys.tsx';
import { Activity } from './pages/activity.tsx';
import { Credits } from './pages/credits.tsx';
import { Models } from './pages/models.tsx';
import { Settings } from './pages/settings.tsx';
import { Members } from './pages/members.tsx';
import { Playground } from './pages/playground.tsx';
import { McpServers } from './pages/mcp-servers.tsx';
import { Webhooks } from './pages/webhooks.tsx';
import { AdminAccounts } from './pages/admin-accounts.tsx';
import { AdminKeys } from './pages/admin-keys.tsx';
import { AdminUsage } from './pages/admin-usage.tsx';
import { AdminHealth } from './pages/admin-health.tsx';
import { AdminAudit } from './pages/admin-audit.tsx';
import { AdminConfig } from './pages/admin-config.tsx';
import type { DashboardSession } from './api/types.ts';
import { asyncHandler } from './async-handler.ts';

/** A signed-in dashboard session (GET /dashboard/session). */
export type Session = Extract<DashboardSession, { signed_in: true }>;

interface Page {
  route: string;
  title: string;
  view: (s: Session) => ComponentChildren;
}

const ACCOUNT_PAGES: Page[] = [
  { route: '', title: 'Overview', view: () => <Overview /> },
  { route: 'keys', title: 'Keys', view: () => <Keys /> },
  { route: 'activity', title: 'Activity', view: () => <Activity scope="account" /> },
  { route: 'credits', title: 'Credits', view: () => <Credits /> },
  { route: 'models', title: 'Models', view: () => <Models /> },
  { route: 'playground', title: 'Playground', view: () => <Playground /> },
  { route: 'mcp-servers', title: 'MCP servers', view: () => <McpServers /> },
  { route: 'webhooks', title: 'Webhooks', view: () => <Webhooks /> },
  { route: 'members', title: 'Members', view: () => <Members /> },
  { route: 'settings', title: 'Settings', view: (s) => <Settings session={s} /> },
];

const ADMIN_PAGES: Page[] = [
  { route: '', title: 'Accounts', view: () => <AdminAccounts /> },
  { route: 'keys', title: 'All keys', view: () => <AdminKeys /> },
  { route: 'activity', title: 'Activity', view: () => <Activity scope="admin" /> },
  { route: 'usage', title: 'Usage', view: () => <AdminUsage /> },
  { route: 'health', title: 'Health', view: () => <AdminHealth /> },
  { route: 'audit', title: 'Audit log', view: () => <AdminAudit /> },
  { route: 'config', title: 'Configuration', view: () => <AdminConfig /> },
  { route: 'models', title: 'Models', view: () => <Models /> },
];

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [emailSignIn, setEmailSignIn] = useState(false);
  const [sso, setSso] = useState<SingleSignOn | null>(null);
  const route = useRoute();

  useEffect(() => {
    whenUnauthorized(() => setSession(null));
    api<Session & { signed_in: boolean }>('GET', '/dashboard/session')
      .then((s) => {
        if (!s.signed_in) {
          setEmailSignIn((s as { email_sign_in?: boolean }).email_sign_in === true);
          setSso((s as { sso?: SingleSignOn | null }).sso ?? null);
          return setSession(null);
        }
        setCsrfToken(s.csrf_token);
        setSession(s);
      })
      .catch(() => setSession(null));
  }, []);

  if (session === undefined)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (session === null) {
    return (
      <SignIn
        emailSignIn={emailSignIn}
        sso={sso}
        onSignedIn={(s) => {
          setCsrfToken(s.csrf_token);
          setSession(s);
          navigate('');
        }}
      />
    );
  }
  const pages = session.kind === 'admin' ? ADMIN_PAGES : ACCOUNT_PAGES;
  // An unknown route is not any page: it says so (and links to the first), it does not show the first.
  const page = pages.find((p) => p.route === route);
  const signOut = async (): Promise<void> => {
    try {
      await api('DELETE', '/dashboard/session');
    } finally {
      setSession(null);
      navigate('');
    }
  };
  return (
    <div class="shell">
      <header class="top">
        <span class="brand">Switchyard</span>
        <span class="who" data-testid="who">
          {session.kind === 'admin'
            ? 'Operator'
            : session.member != null
              ? `${session.member.email} · ${session.account.name} (${session.role})`
              : session.account.name}
        </span>
        <button type="button" class="link" onClick={asyncHandler(signOut)}>
          Sign out
        </button>
      </header>
      <nav class="nav" aria-label="Pages">
        {pages.map((p) => (
          <a
            href={href(p.route)}
            aria-current={p === page ? 'page' : undefined}
            onClick={(e) => {
              e.preventDefault();
              navigate(p.route);
            }}
          >
            {p.title}
          </a>
        ))}
      </nav>
      <main class="main">
        {page === undefined ? (
          <NotFound route={route} home={pages[0]!.title} />
        ) : (
          <>
            <h1>{page.title}</h1>
            {page.view(session)}
          </>
        )}
      </main>
    </div>
  );
}

function NotFound({ route, home }: { route: string; home: string }) {
  return (
    <section aria-label="Not found">
      <h1>Page not found</h1>
      <p>
        There is no page <code>/dashboard/{route}</code>.{' '}
        <a
          href={href('')}
          onClick={(e) => {
            e.preventDefault();
            navigate('');
          }}
        >
          Go to {home}
        </a>
        .
      </p>
    </section>
  );
}
