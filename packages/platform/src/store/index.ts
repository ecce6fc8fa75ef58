// The document-store port every engine implements (@vrp/engines), and what is built on the port
// alone (leases).
export * from './port';
export * from './lease';
