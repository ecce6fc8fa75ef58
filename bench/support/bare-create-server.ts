// Child process of bench/create-path.bench.ts: the least a durable, double-booking-safe create
// must do, as a bare Express 5 handler. POST /v1/reservations parses the JSON body, then in one
// LMDB transaction (lmdb-js, the library of the embedded engines, in BENCH_DATA_DIR) checks each
// night of the stay on its listing and writes the stay and its nights, and answers 201 once the
// commit is on disk (`flushed`, as the engines' durability rule asks); an occupied night is 409.
// Concurrent creates share commits (lmdb-js batches the transactions queued meanwhile), as the
// engines' group commit does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { open } from 'lmdb';

const DAY_MS = 86_400_000;

process.once('message', (message: { dataDir: string }) => {
  const db = open({ path: message.dataDir, encoding: 'json' });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json());
  app.post('/v1/reservations', async (req, res) => {
    const { propertyId, checkIn, checkOut } = req.body as { propertyId: string; checkIn: string; checkOut: string };
    const nights: string[] = [];
    for (let t = Date.parse(checkIn); t < Date.parse(checkOut); t += DAY_MS) nights.push(`night/${propertyId}/${new Date(t).toISOString().slice(0, 10)}`);
    const stay = { id: `res_${randomUUID()}`, ...req.body };
    const free = await db.transaction(() => {
      if (nights.some((night) => db.get(night) !== undefined)) return false;
      // Inside transaction() a put is part of the transaction: its promise settles with the
      // commit, whose failure rejects the transaction() call awaited above.
      void db.put(`stay/${stay.id}`, stay);
      for (const night of nights) void db.put(night, stay.id);
      return true;
    });
    if (!free) {
      res.status(409).json({ error: { code: 'conflict' } });
      return;
    }
    await db.flushed;
    res.status(201).json({ data: stay });
  });
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => {
    void db.close().finally(() => process.exit(0));
  });
});
