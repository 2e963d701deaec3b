export { CONSOLE_CSP, type ConsoleFiles, consoleHandlers } from './handlers.js';
