export { CONSOLE_PATH, registerConsole } from './routes.js';
