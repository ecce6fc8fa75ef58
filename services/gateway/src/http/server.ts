// The gateway's HTTP server: Node's server with request and response objects that are born with
// the Express app's prototypes (`app.request`, `app.response`) instead of getting them per
// request. Express 5's `app.handle` calls `Object.setPrototypeOf(req, app.request)` and
// `Object.setPrototypeOf(res, app.response)` on every request; when the prototype is already
// that object the call changes nothing, and when it is not (a plain IncomingMessage) V8 gives the
// object a new prototype on every request, which measured on this machine makes a third of the
// request's garbage survive each scavenge (promoted ~7 KB per request for a bare Express
// handler, 0 with the prototypes set at birth) and halves a bare handler's throughput
// (docs/architecture.md, "The p99 tail at half load"). The objects are the same as Express's own
// (the same constructor body, the same prototype chain), so nothing else changes.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

type IncomingInit = (this: http.IncomingMessage, socket: Socket) => void;
type ResponseInit = (this: http.ServerResponse, req: http.IncomingMessage, options?: unknown) => void;

/** The server options whose request and response constructors produce the app's own objects. */
function appServerOptions(app: Express): http.ServerOptions {
  // Function constructors (not classes) so that `prototype` can be the app's object itself:
  // Express then finds the prototype already set and its per-request setPrototypeOf is a no-op.
  const initRequest = http.IncomingMessage as unknown as IncomingInit;
  const initResponse = http.ServerResponse as unknown as ResponseInit;
  function AppRequest(this: http.IncomingMessage, socket: Socket): void {
    initRequest.call(this, socket);
  }
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    initResponse.call(this, req, options);
  }
  AppRequest.prototype = app.request;
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
    // Node's own answer to an HTTP/1.1 request without Host is a bare 400; the app answers it
    // with the error envelope instead (middleware/request-context.ts).
    requireHostHeader: false,
  };
}

/** Marks a request whose `Expect` header the server cannot meet (anything but 100-continue). */
export const UNMET_EXPECTATION = Symbol('unmet expectation');

export function createAppServer(app: Express): http.Server {
  const server = http.createServer(appServerOptions(app), app);
  // Node answers an unmet `Expect` with a bare 417; the app answers it with the error envelope.
  server.on('checkExpectation', (req: http.IncomingMessage & { [UNMET_EXPECTATION]?: true }, res: http.ServerResponse) => {
    req[UNMET_EXPECTATION] = true;
    app(req, res);
  });
  return server;
}
