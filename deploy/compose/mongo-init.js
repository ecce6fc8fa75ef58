// Run once by the mongo image on the first start of an empty data volume (mounted into
// /docker-entrypoint-initdb.d by docker-compose.yml), with mongosh, before access control is on.
// Creates `vrp`, the services' user: readWrite on each service's database and nothing else
// (the root user `vrp-admin` is for operators). The password comes from MONGO_APP_PASSWORD.
// The database names are the *_MONGO_DB values of docker-compose.yml (checked by
// e2e/deploy-consistency.test.ts).
/* global db */
const DATABASES = ['vrp_gateway', 'vrp_listing', 'vrp_reservation', 'vrp_guest', 'vrp_pms_adapter', 'vrp_webhook'];
const password = process.env.MONGO_APP_PASSWORD;
if (!password) throw new Error('MONGO_APP_PASSWORD is not set');
db.getSiblingDB('admin').createUser({
  user: 'vrp',
  pwd: password,
  roles: DATABASES.map((name) => ({ role: 'readWrite', db: name })),
});
