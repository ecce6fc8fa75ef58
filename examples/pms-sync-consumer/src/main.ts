// A runnable consumer of pms.sync.v1 against a real Kafka: prints every PMS change it reads.
//   KAFKA_BROKERS=broker:9092 pnpm --filter @vrp-examples/pms-sync-consumer start
// It de-duplicates on the change id (delivery is at least once) and commits after handling.
import { Kafka } from 'kafkajs';
import { decodeChange, loadPmsSyncChange } from './decode';

async function main(): Promise<void> {
  const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
  if (brokers.length === 0) throw new Error('Set KAFKA_BROKERS (comma-separated host:port).');
  const type = await loadPmsSyncChange(process.env.PROTO_ROOT || undefined);
  const kafka = new Kafka({ clientId: 'pms-sync-example', brokers });
  const consumer = kafka.consumer({ groupId: process.env.GROUP_ID ?? 'pms-sync-example' });
  const seen = new Set<string>();
  await consumer.connect();
  await consumer.subscribe({ topic: 'pms.sync.v1', fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (!message.value) return;
      const change = decodeChange(type, message.value);
      if (seen.has(change.changeId)) return;
      seen.add(change.changeId);
      process.stdout.write(`${JSON.stringify({ key: message.key?.toString(), ...change })}\n`);
    },
  });
  const stop = () => void consumer.disconnect().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
