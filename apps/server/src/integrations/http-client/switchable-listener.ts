import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Test helper for the printer simulators (OctoPrint, Moonraker, PrusaLink): a TCP front for a simulator's HTTP server that can stop taking connections and take them again
 * on the same port: the network cable pulled, a printer rebooting or halted on an error screen.
 * While closed, a client's connection is refused, as it is by a real printer that is not there.
 */
export interface SwitchableListener {
  readonly origin: string;
  readonly isOpen: boolean;
  open(): Promise<void>;
  /** Refuses new connections and drops the ones open (a request in flight never gets its answer). */
  close(): Promise<void>;
}

export const startSwitchableListener = async (targetPort: number): Promise<SwitchableListener> => {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listenOnce = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  /** The closed listener's port may take a moment to be released. */
  const listen = async (port: number): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await listenOnce(port);
      } catch (error) {
        if (attempt >= 20 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  };
  await listen(0);
  const port = (server.address() as AddressInfo).port;

  return {
    origin: `http://127.0.0.1:${port}`,
    get isOpen() {
      return server.listening;
    },
    async open() {
      if (!server.listening) await listen(port);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
