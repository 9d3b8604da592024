import { ActionError } from '../../../kit/components/status.js';
import { useAction, useFocusOnMount } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { session, signInMessage } from '../session.js';
import { useTitle } from '../title.js';

/** How the server lets people sign in (`<html data-oidc-provider data-token-signin>`). */
const PROVIDER = document.documentElement.dataset.oidcProvider ?? null;
const TOKEN_SIGN_IN = document.documentElement.dataset.tokenSignin !== 'off';

/**
 * Signs in with the identity provider, when one is set (offered first), or trades an admin token for a session. The token goes to the server once, in a header, and is dropped: the
 * field is cleared and nothing keeps it, so it never reaches storage, a URL or the history.
 */
export function SignIn() {
  useTitle('Sign in');
  // Signed in, the console takes the place of this page: the button stays disabled until then.
  const { busy, error, setError, run } = useAction({ staysBusy: true });
  // Without a provider the page is there to take a token: its field has the focus, so an operator can paste.
  const tokenField = useFocusOnMount<HTMLInputElement>(PROVIDER === null);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('token') as HTMLInputElement;
    const token = field.value.trim();
    field.value = '';
    if (token === '') {
      setError('Enter an admin token.');
      field.focus();
      return;
    }
    const signedIn = await run(async () => {
      session.value = await api.signIn(token);
      signInMessage.value = null;
    });
    if (!signedIn) field.focus();
  };

  return (
    <main class="sign-in" id="main">
      <div class="panel">
        <h1 id="sign-in-heading">Pet Store console</h1>
        {signInMessage.value && (
          <p class="notice" role="status">
            {signInMessage.value}
          </p>
        )}
        {PROVIDER !== null && (
          <>
            <p class="muted">Sign in with your company account: your groups there give your role here.</p>
            <a class="button button-primary" href="/console/oidc/start" data-server>
              Sign in with {PROVIDER}
            </a>
          </>
        )}
        {TOKEN_SIGN_IN ? (
          <form onSubmit={submit} noValidate>
            {PROVIDER === null ? (
              <h2 id="token-heading" class="visually-hidden">
                Sign in with an admin token
              </h2>
            ) : (
              <h2 id="token-heading">Or with an admin token</h2>
            )}
            <p class="muted">
              Sign in with an admin token (<code>petstore admin-tokens create</code>). The console keeps a
              session cookie, never the token.
            </p>
            <label for="token">Admin token</label>
            <input
              id="token"
              name="token"
              type="password"
              autocomplete="off"
              spellcheck={false}
              required
              ref={tokenField}
            />
            <ActionError error={error} />
            {/* With a provider, its button is the one to take: this one is the way round it. */}
            <button type="submit" class={PROVIDER === null ? 'button-primary' : undefined} disabled={busy}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
          </form>
        ) : (
          <p class="muted">
            Signing in with an admin token is turned off here; the command line's admin tokens still work.
          </p>
        )}
      </div>
    </main>
  );
}
