// The MongoDB container's healthcheck (docker-compose.yml), run as
// `mongosh --nodb --quiet --file /vrp/mongo-healthcheck.js`: reads the root password from its
// secret file (never a command-line argument), initiates the one-member replica set on the first
// run, and exits 0 once this member is the writable primary.
/* global Mongo, quit */
// mongosh scripts load Node built-ins with require (no ES modules here).
/* eslint-disable @typescript-eslint/no-require-imports */
const password = require('fs')
  .readFileSync('/run/secrets/mongo_root_password', 'utf8')
  .replace(/\r?\n$/, '');
const admin = new Mongo('mongodb://127.0.0.1:27017/?directConnection=true').getDB('admin');
admin.auth('vrp-admin', password);
try {
  admin.adminCommand({ replSetGetStatus: 1 });
} catch {
  admin.adminCommand({ replSetInitiate: { _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] } });
}
quit(admin.hello().isWritablePrimary ? 0 : 1);
