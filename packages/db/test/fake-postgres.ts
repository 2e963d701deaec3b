import { once } from 'node:events';
import { type AddressInfo, createServer, type Server } from 'node:net';

/** What a fake server answers a startup message with. */
export const ASKS = {
  cleartext: Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]),
  md5: Buffer.from([0x52, 0, 0, 0, 12, 0, 0, 0, 5, 1, 2, 3, 4]),
  /** AuthenticationOk and ReadyForQuery: in without any password. */
  nothing: Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]),
};

/**
 * A listener on 127.0.0.1 posing as PostgreSQL: answers every startup message with `ask` and
 * keeps what the clients sent after their startup message, ending the connection on their next.
 */
export async function fakePostgres(
  ask: Buffer,
  port = 0,
): Promise<{ server: Server; port: number; received: () => Buffer; connections: () => number }> {
  const chunks: Buffer[] = [];
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    let startup = Buffer.alloc(0);
    let answered = false;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      if (answered) {
        chunks.push(chunk);
        socket.end();
        return;
      }
      startup = Buffer.concat([startup, chunk]);
      if (startup.length < 4 || startup.length < startup.readInt32BE(0)) return;
      answered = true;
      chunks.push(startup.subarray(startup.readInt32BE(0)));
      socket.write(ask);
    });
  }).listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as AddressInfo).port,
    received: () => Buffer.concat(chunks),
    connections: () => connections,
  };
}
