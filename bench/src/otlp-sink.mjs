// An OTLP/HTTP receiver that keeps nothing: the endpoint a server exports traces to while
// `cpu-ab` measures what tracing costs it. `node src/otlp-sink.mjs [port]` prints its address.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}`);
});
