// Run once by the mongo image on the first start of an empty data volume (mounted into
// /docker-entrypoint-initdb.d by docker-compose.yml), with mongosh, before access control is on.
// Creates `vrp`, the services' user: readWrite on each service's database and nothing else
// (the root user `vrp-admin` is for operators). The password comes from the secret file
// /run/secrets/mongo_app_password (docker-compose.yml `secrets:`).
// The database names are the *_MONGO_DB values of docker-compose.yml (checked by
// e2e/deploy-consistency.test.ts).
/* global db */
// mongosh scripts load Node built-ins with require (no ES modules here).
/* eslint-disable @typescript-eslint/no-require-imports */
const DATABASES = ['vrp_gateway', 'vrp_listing', 'vrp_reservation', 'vrp_guest', 'vrp_pms_adapter', 'vrp_webhook'];
const password = require('fs')
  .readFileSync('/run/secrets/mongo_app_password', 'utf8')
  .replace(/\r?\n$/, '');
if (!password) throw new Error('/run/secrets/mongo_app_password is empty');
db.getSiblingDB('admin').createUser({
  user: 'vrp',
  pwd: password,
  roles: DATABASES.map((name) => ({ role: 'readWrite', db: name })),
});
