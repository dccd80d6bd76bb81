# Toolgate API image. It needs a PostgreSQL (DATABASE_URL; see docker-compose.yml): the
# embedded one is an optional dependency for local use, left out here, as are the TypeScript
# sources and the bench and chaos builds. test/deploy/image.test.ts keeps these properties.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No embedded PostgreSQL in the build either (its binaries are large and unused here).
RUN npm ci --omit=optional --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bin-executable.mjs ./scripts/bin-executable.mjs
COPY src ./src
COPY migrations ./migrations
RUN npm run build && npm prune --omit=dev --omit=optional

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# Compiled JavaScript only: the application and its migrations.
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/migrations ./dist/migrations
# The persisted-operation manifests (first-party and partner), loaded at boot.
COPY gql/persisted-documents.json ./gql/persisted-documents.json
COPY gql/partner/persisted-documents.json ./gql/partner/persisted-documents.json
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:4000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/cli.js", "start"]
