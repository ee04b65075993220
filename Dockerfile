# Multi-stage build: the release binary (data compiled in) on a small, non-root
# runtime image. Base images are build arguments so that the image also builds
# where no registry is reachable (tests/external/deploy.rs builds it on local images made
# by scripts/base-images):
#   docker build -t iplookup .   (or podman build)
#   docker run -p 8080:8080 --read-only iplookup
ARG BUILDER_IMAGE=docker.io/library/rust:1-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
# Dependencies first, on stand-in sources: this layer is rebuilt only when
# Cargo.toml or Cargo.lock change, not on every change of the code.
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches \
    && echo 'fn main() {}' > build.rs \
    && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs \
    && echo 'fn main() {}' > benches/lookup.rs \
    && cargo build --release --locked --bin iplookup \
    && rm -rf src benches build.rs
COPY build.rs ./
COPY src src
COPY data data
COPY assets assets
COPY benches benches
# The stand-ins' build outputs are older than the real sources: cargo rebuilds
# the crate itself (and runs build.rs), not the dependencies.
RUN touch build.rs src/main.rs src/lib.rs \
    && cargo build --release --locked --bin iplookup \
    && strip target/release/iplookup \
    && mkdir -p /out/data \
    && chown 65532:65532 /out/data

FROM ${RUNTIME_IMAGE}
COPY --from=build /src/target/release/iplookup /usr/local/bin/iplookup
# The embedded data needs nothing else; mount a volume on /data for monthly
# updates (IPLOOKUP_DATA_DIR=/data), as deploy/kubernetes does.
COPY --from=build --chown=65532:65532 /out/data /data
ENV IPLOOKUP_LISTEN=0.0.0.0:8080 \
    IPLOOKUP_LOG_FORMAT=json
EXPOSE 8080
# distroless nonroot, numeric so that Kubernetes runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/iplookup"]
CMD ["serve"]
