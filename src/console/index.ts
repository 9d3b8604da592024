export type { MessagePage, SignInOptions } from './page.js';
export { CONSOLE_PATH, type ConsolePages, registerConsole } from './routes.js';
