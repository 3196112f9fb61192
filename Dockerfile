# One node of the service: Node 20 on Debian 12 with the system ffmpeg/ffprobe the video jobs use.
# Node 20 because the uWebSockets.js build we install has native binaries for Node 16/18/20 only
# (README, "Supported Node versions"); on another Node the service refuses to start.

# Build stage: all dependencies (TypeScript), compile once to dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Run stage: production dependencies and the compiled code only.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so a code change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist

# /srv is the shared volume in docker-compose.yml: MEDIA_DIR and each node's DATA_DIR live on it
# so uploads move from DATA_DIR/tmp into MEDIA_DIR with a rename (same filesystem).
RUN mkdir -p /srv/media /srv/nodes && chown -R node:node /srv
USER node

ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/srv/nodes/default \
    MEDIA_DIR=/srv/media
EXPOSE 3000

HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"

# node itself gets SIGTERM (no npm or shell in between) and drains, then exits 0. Under compose
# `init: true` adds a small PID 1 that forwards signals and reaps ffmpeg children.
CMD ["node", "dist/main.js"]
