// Runs before every test file (jest setupFiles): every memory bus the tests create really
// redelivers (lazy commits, duplicate deliveries, replays after restarts and rebalances), so
// the ordinary tests prove that every consumer is idempotent. `pnpm start` leaves it off.
//
// Deterministic per seed: BUS_REDELIVERY_SEED=<integer> reruns with other draws; a failure
// reproduces with the seed it ran with. BUS_REDELIVERY=off runs the suite without it.
// The memory engine's module alone (not the engines' bus index): a test's jest.mock('kafkajs') must
// still apply to the kafka engine it imports later.
import { setMemoryBusDefaults } from '../packages/engines/src/bus/memory';

const seed = Number(process.env.BUS_REDELIVERY_SEED ?? '20261123');
if (!Number.isInteger(seed)) throw new Error(`BUS_REDELIVERY_SEED must be an integer, got ${process.env.BUS_REDELIVERY_SEED}`);
setMemoryBusDefaults({ redelivery: process.env.BUS_REDELIVERY === 'off' ? false : { duplicates: 0.2, maxCommitLag: 4, seed } });
