// gRPC transport of ListingService: registers the use cases (use-cases/listings.ts and
// use-cases/listing-data.ts) as its methods. grpc-js decodes and encodes the messages; the
// platform's server maps errors; no rule and no store call lives here.
import { listing as pb } from '@vrp/contracts';
import { service, type ServiceRegistration } from '@vrp/platform';
import type { ListingDataDeps } from '../use-cases/data-context';
import { listingDataUseCases } from '../use-cases/listing-data';
import { listingUseCases } from '../use-cases/listings';

export function listingService(deps: ListingDataDeps): ServiceRegistration {
  return service(pb.ListingServiceService, { ...listingUseCases(deps), ...listingDataUseCases(deps) });
}
