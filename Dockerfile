# syntax=docker/dockerfile:1
# switchyard: the gateway on Node 24 (it runs its TypeScript sources directly: no compile
# step). Three stages: `build` installs every dependency (dev ones too: Vite) and builds the
# dashboard (web/ -> dist/dashboard); `deps` installs the production dependencies only;
# `runtime` is the slim image that serves them, as the unprivileged `node` user, with its
# SQLite database on the /data volume. test/deploy/container-layout.test.ts reads this file:
# it builds and runs the image where Docker runs, and elsewhere lays out the same files
# (the COPY lines below) and runs the same start command (CMD).
#
#   docker build --build-arg BUILD=$(git rev-parse --short HEAD) -t switchyard .
#   docker run -p 8080:8080 -v switchyard-data:/data switchyard
#
# The first start writes the operator's API key to /data/first-start-key.txt (the output
# is not a terminal) and prints the commands that follow: `docker logs <container>`.
# The CLI is on the image's PATH: `docker exec <container> switchyard keys list`.

ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# --ignore-scripts: no `prepare` (the dashboard is built below, once its sources are here)
# and no second Node 24 from the `node` package's install script (the image has one).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY bin ./bin
COPY web ./web
RUN node bin/build-dashboard.mjs

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# The git commit this image was built from: /ready, `switchyard --version` (src/config/build-info.ts).
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
COPY --from=build /app/dist/dashboard ./dist/dashboard
# The sources with their types stripped, cached, so the gateway loads no type stripper
# (bin/type-stripped-sources.mjs; it fails the build on an error rather than skip the cache).
RUN echo "${BUILD}" > BUILD \
 && node bin/type-stripped-sources.mjs \
 && ln -s /app/bin/switchyard.mjs /usr/local/bin/switchyard \
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
