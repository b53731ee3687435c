import net from 'node:net';

/**
 * A TCP proxy between the app's pool and PostgreSQL that a test can cut and restore, so the
 * database becomes unreachable while the app keeps running (test/platform/database-outage,
 * test/reliability/outage-under-load).
 */
export function createTcpProxy(target: { host: string; port: number }) {
  let server: net.Server | null = null;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  return {
    start(port = 0): Promise<number> {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        track(client);
        track(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      const listening = server;
      return new Promise((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, '127.0.0.1', () => resolve((listening.address() as net.AddressInfo).port));
      });
    },
    /** Refuses new connections and cuts the open ones, as a crashed or partitioned server would. */
    stop(): Promise<void> {
      const closing = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      return new Promise((resolve) => (closing ? closing.close(() => resolve()) : resolve()));
    },
  };
}
