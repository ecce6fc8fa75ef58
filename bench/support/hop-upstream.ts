// Child process of bench/gateway-overhead.bench.ts, the far end of the bare hop: a bare grpc-js
// server with one unary method that answers fixed bytes (raw bytes, no proto, no checks). With
// hop-server.ts in front of it, it is the least the split layout can cost: an Express handler
// that answers from one gRPC call to another process.
//
// With `reservation`, it is instead the least reservation service: the generated
// ReservationService definition, whose GetReservation decodes the request, finds the reservation
// by workspace and id in a Map (NOT_FOUND otherwise) and encodes it in the reply, and nothing
// else (no store, no request context, no metrics, no listing check). The contract's hop over it
// is the most a gateway keeping the contract can reach over any reservation service.
import * as grpc from '@grpc/grpc-js';
import { reservation as pb } from '@vrp/contracts';
import { answerLoopDelay } from './loop-delay';

answerLoopDelay();

const HOP_METHOD = '/bench.Hop/Get';
const bytes = (b: Buffer) => b;

interface UpstreamMessage {
  /** The bare upstream's answer. */
  body?: string;
  /** The least reservation service's one reservation, as pb.Reservation.toJSON gives it. */
  reservation?: { workspaceId: string; json: unknown };
}

process.once('message', (message: UpstreamMessage) => {
  const server = new grpc.Server();
  if (message.reservation) {
    const stored = pb.Reservation.fromJSON(message.reservation.json);
    const byKey = new Map([[`${message.reservation.workspaceId}/${stored.id}`, stored]]);
    const getReservation: grpc.handleUnaryCall<pb.GetReservationRequest, pb.GetReservationResponse> = (call, callback) => {
      const found = byKey.get(`${call.request.workspaceId}/${call.request.id}`);
      if (!found) callback({ code: grpc.status.NOT_FOUND, details: 'reservation not found' });
      else callback(null, { reservation: found });
    };
    // Every other method answers UNIMPLEMENTED (grpc-js's handler for a method left out).
    server.addService(pb.ReservationServiceService, { getReservation });
  } else {
    const body = Buffer.from(message.body ?? '');
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
  }
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    process.send!({ address: `127.0.0.1:${port}`, method: HOP_METHOD });
  });
  process.on('disconnect', () => process.exit(0));
});
