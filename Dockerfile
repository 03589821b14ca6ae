# syntax=docker/dockerfile:1
# switchyard: the gateway on Node 24 (it runs its TypeScript sources directly: no build
# step). Two stages: `deps` installs the production dependencies from the lockfile;
# `runtime` is the slim image that serves, as the unprivileged `node` user, with its
# SQLite database on the /data volume.
#
#   docker build --build-arg BUILD=$(git rev-parse --short HEAD) -t switchyard .
#   docker run -p 8080:8080 -v switchyard-data:/data switchyard
#
# The first start prints the operator's API key once: `docker logs <container>`.

ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the `node` package's install script would fetch a second Node 24; the
# image has one (bin/switchyard.mjs runs on it directly).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# The git commit this image was built from: /ready, `switchyard --version` (src/server/build-info.ts).
ARG BUILD=dev
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SWITCHYARD_DATA_DIR=/data \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
# The sources with their types stripped, cached, so the gateway loads no type stripper (bin/type-stripped-sources.mjs).
RUN echo "${BUILD}" > BUILD \
 && node bin/type-stripped-sources.mjs \
 && mkdir -p /data \
 && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness: GET /health (no curl in the slim image: Node's fetch).
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains: in-flight requests and streams finish (timeouts.drain_ms, 30 s by default).
STOPSIGNAL SIGTERM
# A 16 MB young generation: scavenges of at most ~10 ms instead of up to 40 ms, and 50-60 MB
# less memory after load, for the same total GC time (docs/operations.md, "Memory and GC").
# The hook serves the type-stripped sources cached above.
CMD ["node", "--max-semi-space-size=16", "--import", "./bin/type-stripped-hook.mjs", "bin/switchyard.mjs", "serve"]
