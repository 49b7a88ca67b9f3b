# syntax=docker/dockerfile:1
# Every image of the URL shortener, from this one file, built with the repository root as
# context. A service's image: SERVICE and PORT as services/services.json lists them (the build
# stops on a service or a port it does not list):
#   docker build --build-arg SERVICE=links --build-arg PORT=7002 -t shortener-links .
# The web app's own image, for Kubernetes (Compose has the gateway serve it):
#   docker build --target web-app -t shortener-frontend .
# docker compose build passes the arguments of each service (docker-compose.yml).
# Node.js 24, the active LTS line (20 reached its end of life in April 2026): its latest
# release when the image is built. npm test runs every suite on the release of this line that
# .nvmrc pins (scripts/image-node.mjs; docs/operations.md, "Images").
ARG NODE_VERSION=24
ARG NGINX_IMAGE=nginxinc/nginx-unprivileged:stable-alpine

# Every workspace's manifest, in its folder, and the lock file: npm ci checks the whole lock
# file against all of them. --parents (Dockerfile 1.20 or later, which the syntax line above
# fetches) keeps the folders, so a package added under packages/ or services/ needs no line.
FROM scratch AS manifests
COPY --parents package.json package-lock.json packages/*/package.json services/*/package.json frontend/package.json /app/

# Every dependency, for building. Nothing here reads SERVICE, so BuildKit builds this layer
# once for all the images.
FROM node:${NODE_VERSION}-alpine AS deps
WORKDIR /app
COPY --from=manifests /app/ ./
# No install scripts: nothing the build or the services run needs one.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund

# The web app, built once for the web-app image and the service that serves it (the gateway).
FROM deps AS web-build
COPY tsconfig.base.json ./
# The page imports the shared API types and constants from source.
COPY packages/contracts/ packages/contracts/
COPY frontend/ frontend/
RUN npm run build --workspace @shortener/frontend

# The web app as static files served by an unprivileged nginx (Kubernetes routes / here).
FROM ${NGINX_IMAGE} AS web-app
COPY frontend/nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=web-build /app/frontend/dist/ /usr/share/nginx/html/
# The image's `nginx` user, by number so that Kubernetes can check runAsNonRoot. nginx writes
# only under /tmp (pid file, request buffers): the root file system can be read-only.
USER 101:101
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/healthz"]

# The service's production dependencies only. npm links node_modules/@shortener/* to the
# workspaces the service uses at run time (itself included), and to no other.
FROM node:${NODE_VERSION}-alpine AS prod-deps
ARG SERVICE
WORKDIR /app
COPY --from=manifests /app/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace services/${SERVICE}

FROM deps AS build
ARG SERVICE
ARG PORT
COPY tsconfig.base.json ./
COPY packages/ packages/
COPY services/services.json services/
COPY services/${SERVICE}/ services/${SERVICE}/
# SERVICE and PORT must be as services/services.json lists them. node.env holds the Node
# options the service's package.json declares (config.nodeOptions): the CMD below loads it,
# and a NODE_OPTIONS given to the container replaces it, as it would an ENV. node.args holds
# its command-line flags (config.nodeArgs: V8 flags NODE_OPTIONS does not accept), which the
# CMD puts before the entry.
RUN node -e "\
      const { SERVICE, PORT } = process.env;\
      const service = require('./services/services.json').services.find((s) => s.name === SERVICE);\
      if (!service) throw new Error('SERVICE=' + SERVICE + ' is not in services/services.json');\
      if (String(service.port) !== PORT) throw new Error('PORT=' + PORT + ': services/services.json gives ' + SERVICE + ' port ' + service.port);\
      const { config = {} } = require('./services/' + SERVICE + '/package.json');\
      const options = config.nodeOptions ? 'NODE_OPTIONS=' + JSON.stringify(config.nodeOptions) + '\n' : '';\
      fs.writeFileSync('services/' + SERVICE + '/node.env', options);\
      fs.writeFileSync('services/' + SERVICE + '/node.args', (config.nodeArgs ?? '') + '\n');"
RUN npx tsc -b services/${SERVICE}
# What the image holds besides node_modules: the package.json and dist/ of every workspace
# prod-deps linked (the service and the packages it uses), node.env, node.args, and the web
# app for the service that serves it.
RUN --mount=type=bind,from=prod-deps,source=/app/node_modules/@shortener,target=/links \
    --mount=type=bind,from=web-build,source=/app/frontend/dist,target=/web-app \
    set -e; \
    for link in /links/*; do \
      folder=$(readlink "$link"); folder=${folder#../../}; \
      mkdir -p "/image/$folder"; \
      cp -R "$folder/package.json" "$folder/dist" "/image/$folder/"; \
    done; \
    cp "services/$SERVICE/node.env" "services/$SERVICE/node.args" "/image/services/$SERVICE/"; \
    if node -e "process.exit(require('./services/services.json').services.find((s) => s.name === process.env.SERVICE).webApp ? 0 : 1)"; then \
      mkdir -p /image/frontend; cp -R /web-app /image/frontend/dist; \
    fi

# A service's image: the default target.
FROM node:${NODE_VERSION}-alpine
ARG SERVICE
ARG PORT
# npm, npx, yarn and corepack are not needed to run: out of reach, and out of CVE scans.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
    /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ENV NODE_ENV=production PORT=${PORT}
# node_modules/@shortener/* are links to ../../packages/* and ../../services/<name>: /image
# completes them. The gateway finds the web app at /app/frontend/dist (its FRONTEND_DIR
# default, relative to its dist/).
COPY --from=prod-deps /app/node_modules/ /app/node_modules/
COPY --from=build /image/ /app/
# Runs in its service's folder. The migration Job runs node /app/services/<name>/dist/migrate.js
# in the same image.
WORKDIR /app/services/${SERVICE}
# The redirect's visit spool (VISIT_SPOOL_DIR): a volume mounted here starts as this folder,
# the node user's own.
RUN mkdir -p /var/spool/visits && chown 1000:1000 /var/spool/visits && chmod 700 /var/spool/visits
# The image's `node` user, by number so that Kubernetes can check runAsNonRoot.
USER 1000:1000
EXPOSE ${PORT}
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# A shell only to read node.args; exec leaves node as the container's first process, which
# receives its signals.
CMD ["/bin/sh", "-c", "exec node $(cat node.args) --env-file=node.env --enable-source-maps dist/main.js"]
