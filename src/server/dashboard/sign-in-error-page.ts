// The small pages a browser lands on at the end of a single sign-on (oidc-routes.ts): the
// page that moves on to the dashboard, and one that says why a sign-in was refused, with a
// way back. Static HTML of the gateway's own origin, no script (the dashboard's CSP).

const escape = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Opens the dashboard by a same-site navigation (the SameSite=Strict session cookie goes with it). */
export function continuePage(dashboard: string): string {
  const href = escape(dashboard);
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${href}"><title>Signed in</title></head>` +
    `<body><p>Signed in. <a href="${href}">Open the dashboard</a>.</p></body></html>`
  );
}

export function signInErrorPage(message: string, dashboard: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused</title></head>` +
    `<body><h1>Sign-in refused</h1><p>${escape(message)}</p><p><a href="${escape(dashboard)}">Back to sign-in</a></p></body></html>`
  );
}
