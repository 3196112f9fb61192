#!/usr/bin/env bash
# Validates the deployment files without a Docker daemon (CI cannot pull images):
# - docker-compose.yml, with and without the `monitoring` profile: `docker compose config` when
#   the Compose v2 plugin is there; otherwise Debian's docker-compose 1.29 (apt package
#   docker-compose), which checks the same Compose Specification schema but predates the
#   top-level `name:` key, so that one line is left out of what it reads (-p gives the name);
# - deploy/prometheus.yml: `promtool check config --syntax-only` (apt package prometheus; the
#   token file it names exists only inside the Prometheus container).
# Exits non-zero on the first invalid file or when a validator is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if docker compose version >/dev/null 2>&1; then
  for profile in "" monitoring; do
    docker compose ${profile:+--profile "$profile"} -f docker-compose.yml config -q
  done
  echo "docker-compose.yml: valid (docker compose)"
elif command -v docker-compose >/dev/null 2>&1; then
  name=$(sed -n 's/^name: *//p' docker-compose.yml)
  for profile in "" monitoring; do
    sed '/^name: /d' docker-compose.yml | docker-compose -f - --project-directory . -p "${name:-revs}" ${profile:+--profile "$profile"} config -q
  done
  echo "docker-compose.yml: valid (docker-compose $(docker-compose version --short))"
else
  echo "no Compose validator: install the Docker Compose plugin or Debian's docker-compose" >&2
  exit 2
fi

if command -v promtool >/dev/null 2>&1; then
  promtool check config --syntax-only deploy/prometheus.yml >/dev/null
  echo "deploy/prometheus.yml: valid (promtool)"
else
  echo "no promtool: install Debian's prometheus package" >&2
  exit 2
fi
