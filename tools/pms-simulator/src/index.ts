// The PMS simulator: a dev/test program that behaves like PMS-A..PMS-G over HTTP.
export { startPmsSimulator, type Fault, type LoggedRequest, type PmsSimulator, type Refusal } from './server';
export { SimulatorControl } from './client';
export { PMS_APIS, PMS_NAMES, WRITE_KINDS, type PmsApi, type PmsName, type WriteKind } from './endpoints';
export {
  SimulatorState,
  PROVIDER_SLUGS,
  type PmsChange,
  type PmsGuest,
  type PmsListing,
  type PmsMessage,
  type PmsRequest,
  type PmsReservation,
  type PmsReview,
} from './state';
