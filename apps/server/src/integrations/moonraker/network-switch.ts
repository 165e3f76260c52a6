import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Test helper: a TCP front door on a fixed port that forwards to a simulator's HTTP server, so the
 * simulator can be unplugged (connections refused, open ones cut) and plugged back on the same
 * address, as a printer whose cable is pulled or whose server restarts. The HTTP server behind it
 * keeps running, so the printer's own state survives.
 */
export interface NetworkSwitch {
  readonly origin: string;
  /** Closes the door: new connections are refused and open ones are cut. */
  unplug(): void;
  /** Opens the door again on the same port. */
  plugIn(): Promise<void>;
  stop(): Promise<void>;
}

export const startNetworkSwitch = async (upstreamOrigin: string): Promise<NetworkSwitch> => {
  const upstream = new URL(upstreamOrigin);
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const door: Server = createServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    track(client);
    track(server);
    client.pipe(server).pipe(client);
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      door.once('error', reject);
      door.listen(port, '127.0.0.1', () => {
        door.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (door.address() as AddressInfo).port;
  let open = true;

  const unplug = (): void => {
    if (!open) return;
    open = false;
    door.close();
    for (const socket of sockets) socket.destroy();
  };
  return {
    origin: `http://127.0.0.1:${port}`,
    unplug,
    plugIn: async () => {
      if (open) return;
      await listen(port);
      open = true;
    },
    stop: async () => {
      unplug();
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
};
