# Flagstaff's container image (docs/decisions/1730-container-image.md): `npm run image`.
# Both bases are build arguments. The defaults are public images; where no image registry can
# be reached, deploy/container/debian-base-images.sh builds both from Debian packages.
ARG BUILD_IMAGE=docker.io/library/node:24-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
# Dependencies first, so that this layer is reused while the lock file stays the same. The
# `node` package's install script brings the Node 24 runtime, whatever Node runs npm here.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund --ignore-scripts && npm rebuild node
COPY tsconfig.json ./
COPY dashboard ./dashboard
COPY src ./src
COPY bin ./bin
RUN npm run build
# The runtime: the Node 24 binary alone (not its headers, npm or manuals).
RUN install -D -m 0755 node_modules/node/bin/node /runtime/usr/local/bin/node
# Production dependencies only, without what only compilers and editors read: TypeScript among
# them (declarations and sources, e.g. zod's src/), which Node never runs inside node_modules.
RUN npm prune --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/node node_modules/.bin node_modules/.package-lock.json \
  && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
       -o -name '*.map' -o -name '*.md' -o -name '*.markdown' -o -name '*.tsbuildinfo' \) -delete \
  && find node_modules -type d \( -name esnext -path '*/@opentelemetry/*/build/esnext' \) -prune -exec rm -rf {} +
# Node's compile cache (decision 2082): a serving node's modules, type-stripped and compiled once
# here by the image's user, so that a container never loads the type stripper. Its files are
# written 0600; the runtime's copy is root's and only readable (the image's /app is read-only).
COPY deploy/container/warm-compile-cache.sh /tmp/
RUN sh /tmp/warm-compile-cache.sh \
  && mkdir -p /runtime/app/dashboard/public /runtime/data \
  && cp -r package.json bin src node_modules /runtime/app/ \
  && chmod -R a+rX /runtime/app/node_modules/.cache \
  && cp -r dashboard/dist /runtime/app/dashboard/dist \
  && cp dashboard/public/favicon.svg /runtime/app/dashboard/public/ \
  && find /runtime/app/src -name '*.test.ts' -delete

FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="Flagstaff" \
      org.opencontainers.image.description="Self-hosted feature-flag service: flags, segments, targeting and OpenFeature (OFREP) evaluation over SQLite or PostgreSQL." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.documentation="README.md#deploy"
COPY --from=build /runtime/usr/local/bin/node /usr/local/bin/node
COPY --from=build /runtime/app /app
# The volume's first use copies this empty directory, owned by the user the server runs as.
COPY --from=build --chown=65532:65532 /runtime/data /data
ENV NODE_ENV=production \
    FLAGSTAFF_HOST=0.0.0.0 \
    FLAGSTAFF_PORT=8080 \
    FLAGSTAFF_DATABASE_URL=sqlite:/data/flagstaff.db
USER 65532:65532
WORKDIR /app
VOLUME /data
EXPOSE 8080
# Node itself probes: the image has no shell or curl. Ready, not only alive: 503 while draining.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.FLAGSTAFF_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/flagstaff.js"]
CMD ["serve"]
