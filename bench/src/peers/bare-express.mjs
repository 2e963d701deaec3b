// The framework's ceiling: Express 5 answering a fixed JSON body from memory.
import express from 'express';

const body = process.env.BODY ?? '{}';
const app = express();
app.disable('x-powered-by');
app.all('/{*path}', (_req, res) => {
  res.type('application/json').send(body);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
