# One container, one process, one volume for the data directory.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    KINBOT_DATA_DIR=/data \
    KINBOT_HOST=0.0.0.0 \
    KINBOT_PORT=8787

RUN useradd --create-home --uid 1000 kinbot \
    && mkdir /data \
    && chown kinbot:kinbot /data

WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY hookspecs ./hookspecs
COPY kinbot_core ./kinbot_core
COPY kinbot_plugins ./kinbot_plugins
COPY kinbot_web ./kinbot_web
RUN pip install --constraint constraints.txt .

USER kinbot
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8787/api/health', timeout=4).status != 200)"]
CMD ["kinbot", "serve"]
