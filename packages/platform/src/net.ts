import net from 'node:net';

/**
 * A TCP port that is free now on `host` (the OS picks it). The embedded stack uses it to fix every
 * service's address before starting any; tests use it for the processes they start.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
