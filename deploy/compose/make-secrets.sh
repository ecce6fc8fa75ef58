#!/usr/bin/env bash
# Writes the secrets of docker-compose.yml as files under ./secrets (run from the repository
# root; mode 0600 in a 0700 directory; existing files are kept, so a second run changes nothing).
# Values are random and URL-safe (hex): the MongoDB password goes into a connection string.
# Never change api_key_pepper once API keys were issued: every key would stop matching.
set -euo pipefail
umask 077
mkdir -p secrets
random() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }
keep_or_write() { [ -s "secrets/$1" ] || printf '%s' "$2" > "secrets/$1"; }
keep_or_write admin_token "$(random 24)"
keep_or_write api_key_pepper "$(random 32)"
keep_or_write mongo_root_password "$(random 32)"
keep_or_write mongo_app_password "$(random 32)"
keep_or_write mongo_url "mongodb://vrp:$(cat secrets/mongo_app_password)@mongo:27017/?replicaSet=rs0&authSource=admin"
echo "secrets in $(pwd)/secrets: $(ls secrets | tr '\n' ' ')"
