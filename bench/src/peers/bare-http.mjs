// The machine's ceiling: node:http answering a fixed JSON body from memory.
import { createServer } from 'node:http';

const body = process.env.BODY ?? '{}';
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
