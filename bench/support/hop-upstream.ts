// Child process of bench/gateway-overhead.bench.ts, the far end of the bare hop: a bare grpc-js
// server with one unary method that answers fixed bytes (raw bytes, no proto, no checks). With
// hop-server.ts in front of it, it is the least the split layout can cost: an Express handler
// that answers from one gRPC call to another process.
import * as grpc from '@grpc/grpc-js';
import { answerLoopDelay } from './loop-delay';

answerLoopDelay();

const HOP_METHOD = '/bench.Hop/Get';
const bytes = (b: Buffer) => b;

process.once('message', (reply: { body: string }) => {
  const body = Buffer.from(reply.body);
  const server = new grpc.Server();
  server.addService(
    {
      Get: {
        path: HOP_METHOD,
        requestStream: false,
        responseStream: false,
        requestSerialize: bytes,
        requestDeserialize: bytes,
        responseSerialize: bytes,
        responseDeserialize: bytes,
      },
    },
    { Get: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => callback(null, body) },
  );
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    process.send!({ address: `127.0.0.1:${port}`, method: HOP_METHOD });
  });
  process.on('disconnect', () => process.exit(0));
});
