# syntax=docker/dockerfile:1
# One container, one process, one volume for the data directory.
# docker build -t kinbot . && docker run -p 8787:8787 -v kinbot-data:/data kinbot

# The web interface (Node.js >= 20.19): npm ci, then npm run build into kinbot_web/static/.
FROM node:22-bookworm-slim AS frontend
WORKDIR /src/kinbot_web/frontend
COPY kinbot_web/frontend/package.json kinbot_web/frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY kinbot_web/frontend/ ./
RUN npm run build

# The wheel, with the interface built above (so the build hook, hatch_build.py, skips npm).
FROM python:3.11-slim-bookworm AS wheel
WORKDIR /src
COPY pyproject.toml README.md hatch_build.py constraints.txt ./
COPY hookspecs ./hookspecs
COPY kinbot_core ./kinbot_core
COPY kinbot_plugins ./kinbot_plugins
COPY kinbot_web ./kinbot_web
COPY --from=frontend /src/kinbot_web/static ./kinbot_web/static
RUN PIP_CONSTRAINT=/src/constraints.txt KINBOT_SKIP_FRONTEND_BUILD=1 \
    pip wheel --no-cache-dir --no-deps --wheel-dir /dist .

FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    KINBOT_DATA_DIR=/data \
    KINBOT_HOST=0.0.0.0 \
    KINBOT_PORT=8787

# bubblewrap confines Kin code (custom tools) where the container may create user namespaces;
# an ordinary container may not, and Landlock (the host kernel's) confines it instead; where
# neither works, custom tools are refused. git runs the git_clone tool (ca-certificates for
# its https); Node.js and npx run MCP servers from npm.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap git ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=frontend /usr/local/bin/node /usr/local/bin/node
COPY --from=frontend /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && node --version && npx --version

RUN useradd --create-home --uid 1000 kinbot \
    && mkdir /data \
    && chown kinbot:kinbot /data

RUN --mount=type=bind,from=wheel,source=/dist,target=/tmp/dist \
    --mount=type=bind,source=constraints.txt,target=/tmp/constraints.txt \
    pip install --constraint /tmp/constraints.txt /tmp/dist/*.whl

USER kinbot
WORKDIR /home/kinbot
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8787/api/health', timeout=4).status != 200)"]
CMD ["kinbot", "serve"]
