// The engines a service process opens, chosen from its configuration (STORE, BUS): what a
// service's main.ts hands to serviceMain (@vrp/platform/service).
import type { OpenEngines } from '@vrp/platform/service';
import { createBus } from './bus';
import { createStore } from './store';

/** Opens the store, then the bus, that `config` selects. */
export const openEngines: OpenEngines = async (config) => {
  const store = await createStore(config.store);
  return { store, bus: createBus(config.bus) };
};
