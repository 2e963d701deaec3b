export { systemHandlers } from './handlers.js';
