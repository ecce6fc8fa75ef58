// What a Kubernetes Service does in front of the gateway's replicas, for the embedded stack: each
// new TCP connection goes to the next ready backend, round robin; a backend taken out (not ready:
// draining or restarting) gets no new connection, and one that refuses a connection is skipped.
// Connections are balanced, not requests: a keep-alive connection stays on its replica, as it
// does behind kube-proxy.
import net from 'node:net';

export interface Balancer {
  /** The port clients connect to. */
  port: number;
  /** Puts a backend in rotation (ready). */
  add(backendPort: number): void;
  /** Takes a backend out of rotation (not ready): no new connection; its open ones stay. */
  remove(backendPort: number): void;
  close(): Promise<void>;
}

export async function startBalancer(opts: { host: string; port: number; backends: number[] }): Promise<Balancer> {
  const order = [...opts.backends];
  const sockets = new Set<net.Socket>();
  let next = 0;

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const connect = (client: net.Socket, tried: number) => {
    if (tried >= order.length) {
      client.destroy();
      return;
    }
    const backendPort = order[next++ % order.length]!;
    const backend = net.connect({ host: opts.host, port: backendPort });
    track(backend);
    let connected = false;
    backend.on('error', () => {
      backend.destroy();
      if (connected) client.destroy();
      // Refused before anything was relayed: the next backend takes the connection.
      else if (!client.destroyed) connect(client, tried + 1);
    });
    backend.once('connect', () => {
      connected = true;
      client.on('error', () => backend.destroy());
      backend.once('close', () => client.destroy());
      client.once('close', () => backend.destroy());
      client.pipe(backend);
      backend.pipe(client);
      client.resume();
    });
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    connect(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    add(backendPort) {
      if (!order.includes(backendPort)) order.push(backendPort);
    },
    remove(backendPort) {
      const at = order.indexOf(backendPort);
      if (at >= 0) order.splice(at, 1);
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
