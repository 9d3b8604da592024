import 'uplot/dist/uPlot.min.css';
import '../../../kit/styles.css';
import './key.css';
import { render } from 'preact';
import { KeyPage } from './key-page.js';

render(<KeyPage />, document.getElementById('app') as HTMLElement);
