import 'uplot/dist/uPlot.min.css';
import '../../kit/styles.css';
import { render } from 'preact';
import { api } from './api.js';
import { App } from './app.js';
import { startRouting } from './router.js';
import { session } from './session.js';

// A sign-in with the identity provider lands here with its session's second secret in the fragment.
api.adoptSignIn();
startRouting();
render(<App />, document.getElementById('app') as HTMLElement);
// The cookie is HttpOnly: only the server can say whether it holds a session.
api.currentSession().then(
  (current) => {
    session.value = current;
  },
  () => {
    session.value = null;
  },
);
