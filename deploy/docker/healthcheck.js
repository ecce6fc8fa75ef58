// Docker HEALTHCHECK of the images: GET http://127.0.0.1:<port><path>, healthy on a 200.
// No curl/wget in the slim runtime image, so Node itself asks.
//   node healthcheck.js [port] [path]
// port: argument, else HEALTH_PORT, else the default ops port of $SERVICE (gateway: 8080).
// path: argument, else HEALTH_PATH, else /healthz.
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS script run by node in the image
const http = require('node:http');

const OPS_PORTS = { gateway: 8080, listing: 9161, reservation: 9162, guest: 9163, 'pms-adapter': 9164, webhook: 9165 };
const port = Number(process.argv[2] || process.env.HEALTH_PORT || OPS_PORTS[process.env.SERVICE || ''] || 8080);
const path = process.argv[3] || process.env.HEALTH_PATH || '/healthz';

const req = http.get({ host: '127.0.0.1', port, path, timeout: 2500 }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
