// Raw HTTP/1.1 over a socket, for requests no client library sends (no Host, a made-up Expect,
// broken framing): the bytes go out as given, and the whole answer is read until the server
// closes the connection (send `Connection: close` for answers that would keep it open).
import net from 'node:net';

/** Sends `payload` to host:port and resolves with everything the server wrote back. */
export function rawExchange(port: number, payload: string | Buffer, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host, () => socket.write(payload));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

export interface RawResponse<T> {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The JSON body; null when there is none. */
  body: T;
}

/** The status, headers and JSON body of a raw HTTP/1.1 answer with a Content-Length body. */
export function parseRawResponse<T>(raw: string): RawResponse<T> {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head!.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const text = rest.join('\r\n\r\n');
  return { status: Number(statusLine!.split(' ')[1]), headers, body: (text ? JSON.parse(text) : null) as T };
}
