# Sillage widget service. Build from the repository root:
#   docker build -t sillage .
#   docker run -d --name sillage -p 127.0.0.1:3000:3000 -v sillage-data:/app/.data \
#     --env-file /etc/sillage/sillage.env sillage
# docs/operations.md covers the settings, PostgreSQL, nginx in front, upgrades.
#
# NODE_IMAGE: any Debian-based Node 20 image with a non-root "node" user (the
# official one, or your registry's mirror of it).
ARG NODE_IMAGE=node:20-bookworm-slim

# --- deps: every dependency, exactly as package-lock.json says ---------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci's postinstall applies patches/ (the postgres.js fix, docs/decisions.md)
COPY patches ./patches
RUN npm ci --no-audit --no-fund

# --- build: the widget's files and the compiled service, then only the production dependencies
FROM deps AS build
COPY . .
# dist/widget/v1 and build/ (the service compiled to JavaScript,
# tsconfig.build.json): built here, so the service never writes in /app nor
# compiles anything. Then the dev dependencies go (the TypeScript compiler
# with them); prune keeps the patched postgres.js as it is. tsx stays for
# `npm run admin`.
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force

# --- runtime ------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    PGLITE_DATA_DIR=/app/.data/pglite
WORKDIR /app
# The code belongs to root and is read-only to the service; only /app/.data
# (the embedded database and its local key files) is the service's.
COPY --from=build /app /app
RUN mkdir -p /app/.data && chown node:node /app/.data && chmod 700 /app/.data
USER node
VOLUME ["/app/.data"]
EXPOSE 3000
# SIGTERM: stop accepting, finish in-flight requests (10 s at most), close the
# database. Give `docker stop` more than that: docker stop -t 20.
STOPSIGNAL SIGTERM
# Liveness only (/healthz never touches the database); there is no curl in the
# slim image, so node's fetch asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# plain node on the compiled service: no loader, no compiler, one process
# that SIGTERM reaches (what `npm start` runs once build/ is up to date)
CMD ["node", "--max-semi-space-size=4", "--liftoff-only", "build/server.js"]
