import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { api } from './api.js';
import { App } from './app.js';
import { startRouting } from './router.js';
import { session } from './session.js';

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
