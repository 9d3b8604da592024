import { useEffect, useRef } from 'preact/hooks';
import { personName } from '../../src/contract/roles.js';
import { api } from './api.js';
import { issuedSecret, notice } from './notice.js';
import { AdminTokensPage } from './pages/admin-tokens-page.js';
import { AuditPage } from './pages/audit-page.js';
import { DomainList } from './pages/domain-list.js';
import { DomainPage } from './pages/domain-page.js';
import { KeyList } from './pages/key-list.js';
import { KeyPage } from './pages/key-page.js';
import { NoAccess } from './pages/no-access.js';
import { NotFound } from './pages/not-found.js';
import { PeoplePage } from './pages/people-page.js';
import { RequestPage } from './pages/request-page.js';
import { RequestsPage } from './pages/requests-page.js';
import { SignIn } from './pages/sign-in.js';
import { UsagePage } from './pages/usage-page.js';
import { WebhookList } from './pages/webhook-list.js';
import { WebhookPage } from './pages/webhook-page.js';
import { BASE, href, location, navigate, type Route, routeOf } from './router.js';
import { roleLacking, session } from './session.js';
import type { Session } from './types.js';

const SECTIONS = [
  { label: 'Domains', path: href('domains'), pages: ['domains', 'domain'] },
  { label: 'API keys', path: href('keys'), pages: ['keys', 'key'] },
  { label: 'Usage', path: href('usage'), pages: ['usage'] },
  { label: 'Requests', path: href('requests'), pages: ['requests', 'request'] },
  { label: 'Webhooks', path: href('webhooks'), pages: ['webhooks', 'webhook'] },
  { label: 'Audit', path: href('audit'), pages: ['audit'] },
  { label: 'Admin tokens', path: href('admin-tokens'), pages: ['admin-tokens'] },
  { label: 'People', path: href('people'), pages: ['people'] },
] as const;

/** The service's version, which the server writes on the page (`<html data-version>`). */
const VERSION = document.documentElement.dataset.version ?? 'unknown';

function Page({ route }: { route: Route }) {
  const lacking = roleLacking(route.page);
  if (lacking !== undefined) {
    const section = SECTIONS.find((one) => (one.pages as readonly string[]).includes(route.page));
    return <NoAccess page={section?.label} needs={lacking} />;
  }
  switch (route.page) {
    case 'domains':
      return <DomainList />;
    case 'domain':
      // One page a domain or key: state of the last one (an open form) never carries over to the next.
      return <DomainPage key={route.name} name={route.name} />;
    case 'keys':
      return <KeyList />;
    case 'key':
      return <KeyPage key={route.id} id={route.id} />;
    case 'usage':
      return <UsagePage />;
    case 'audit':
      return <AuditPage />;
    case 'requests':
      return <RequestsPage />;
    case 'request':
      return <RequestPage key={route.id} id={route.id} />;
    case 'webhooks':
      return <WebhookList />;
    case 'webhook':
      return <WebhookPage key={route.id} id={route.id} />;
    case 'admin-tokens':
      return <AdminTokensPage />;
    case 'people':
      return <PeoplePage />;
    case 'not-found':
      return <NotFound />;
  }
}

/** Who the footer says is signed in: the person, or the admin token, with the role. */
function signedInAs(current: Session): string {
  const { person, tokenName, role } = current;
  if (person !== null) return `Signed in as ${personName(person)} (${role})`;
  return `Signed in with the admin token ${tokenName ?? ''} (${role})`;
}

async function signOut() {
  try {
    await api.signOut();
  } finally {
    session.value = null;
  }
}

/** The signed-in console: header with the sections and Sign out, the page, and the version in the footer. */
function Shell() {
  const { pathname } = location.value;
  const route = routeOf(pathname);
  const shown = notice.value?.pathname === pathname ? notice.value.text : null;

  useEffect(() => {
    // `/console` itself is the domains page, under its own address so the nav marks it.
    if (pathname === BASE || pathname === `${BASE}/`) navigate(href('domains'), { replace: true });
  }, [pathname]);

  const first = useRef(true);
  useEffect(() => {
    if (notice.value && notice.value.pathname !== pathname) notice.value = null;
    if (issuedSecret.value && issuedSecret.value.pathname !== pathname) issuedSecret.value = null;
    if (first.current) {
      first.current = false;
      return;
    }
    // A new page is announced by moving focus to its heading (or, while it loads, to the main region), as a
    // page load would start reading at the top.
    document.querySelector<HTMLElement>('main h1')?.focus() ?? document.getElementById('main')?.focus();
    window.scrollTo(0, 0);
  }, [pathname]);

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="header">
        <a class="brand" href={href('domains')}>
          Pet Store <span>console</span>
        </a>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.filter((section) => section.pages.every((page) => roleLacking(page) === undefined)).map(
              (section) => (
                <li key={section.path}>
                  <a
                    href={section.path}
                    aria-current={
                      (section.pages as readonly string[]).includes(route.page) ? 'page' : undefined
                    }
                  >
                    {section.label}
                  </a>
                </li>
              ),
            )}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" class="main" tabIndex={-1}>
        {shown && (
          <p class="notice" role="status">
            {shown}
          </p>
        )}
        <Page route={route} />
      </main>
      <footer class="footer">
        <span>Pet Store API {VERSION}</span>
        <a href="/docs/guides/keys-and-admin-api#console">The console’s guide</a>
        {session.value && <span>{signedInAs(session.value)}</span>}
      </footer>
    </>
  );
}

/** The console: the sign-in page until the server says a session exists, then the page the URL names. */
export function App() {
  if (session.value === undefined)
    return (
      <p class="muted boot" role="status">
        Loading…
      </p>
    );
  return session.value === null ? <SignIn /> : <Shell />;
}
