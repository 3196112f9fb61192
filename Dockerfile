# One node of the service: Node 20 on Debian 12 with the system ffmpeg/ffprobe the video jobs use.
FROM node:20-bookworm-slim

RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so a code change does not reinstall them. `tsx` (which runs the TypeScript
# sources) is a runtime dependency, so dev dependencies can stay out.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY . .

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

# npm passes SIGTERM on to the service, which drains and exits 0 (run with an init, see compose).
CMD ["npm", "start"]
