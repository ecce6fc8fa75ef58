// The PMS simulator: a dev/test program that behaves like PMS-A..PMS-G over HTTP.
export { startPmsSimulator, type Fault, type LoggedRequest, type PmsSimulator } from './server';
export { SimulatorControl } from './client';
export { SimulatorState, PROVIDER_SLUGS, type PmsChange, type PmsGuest, type PmsListing, type PmsReservation } from './state';
