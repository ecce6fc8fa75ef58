// What a PMS can do through the API, from the capability matrix (GetProviderCapabilities).
import { AppError } from '@vrp/platform/errors';
import { pmsCapabilities, reservationCapabilities } from '@vrp/pms-matrix';
import { providerNamed } from '../domain/connection';

export function providerCapabilities(name: string) {
  const provider = providerNamed(name);
  if (!provider)
    throw new AppError('not_found', `No PMS named '${name}' is supported (PMS-A..PMS-G).`, {}, 'Use one of PMS-A, PMS-B, PMS-C, PMS-D, PMS-E, PMS-F, PMS-G.');
  return { provider, reservations: reservationCapabilities(provider), pms: pmsCapabilities(provider) };
}
