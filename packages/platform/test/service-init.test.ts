// startService prepares the service's database (store.init(): collections and indexes) before
// its gRPC server takes calls and before /readyz can say ready; a database that does not answer
// stops the start instead of serving without indexes.
import { Schema } from 'mongoose';
import { createLogger } from '../src/logging';
import { startService } from '../src/service';
import { createMemoryStore } from '../../engines/src/store';
import { StoreUnavailableError, type DocumentStore } from '../src/store/port';

const readyz = async (port: number): Promise<number> => (await fetch(`http://127.0.0.1:${port}/readyz`)).status;

const logger = createLogger('init-test', 'silent');
const start = (store: DocumentStore) =>
  startService({ name: 'init-test', grpcPort: 0, opsPort: 0, host: '127.0.0.1', services: [], checks: { store: () => store.ready() }, logger, store });

describe('startService and store.init()', () => {
  it('awaits store.init() before serving: it does not start until init has finished', async () => {
    const store = createMemoryStore();
    store.collection({ name: 'things', schema: new Schema({ _id: String, name: String }) });
    const events: string[] = [];
    const init = store.init.bind(store);
    let finishInit: () => void = () => undefined;
    const initGate = new Promise<void>((resolve) => (finishInit = resolve));
    store.init = async () => {
      events.push('init started');
      await initGate;
      await init();
      events.push('init done');
    };
    const starting = start(store).then((running) => {
      events.push('serving');
      return running;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['init started']);
    finishInit();
    const running = await starting;
    expect(events).toEqual(['init started', 'init done', 'serving']);
    expect(await readyz(running.opsPort)).toBe(200);
    store.freeze();
    expect(await readyz(running.opsPort)).toBe(503);
    store.thaw();
    await running.stop();
  });

  it('a database that does not answer at start stops the start with StoreUnavailableError', async () => {
    const store = createMemoryStore({ timeoutMs: 50 });
    store.freeze();
    await expect(start(store)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
