# Multi-stage build: the release binary (data compiled in) on a small, non-root
# runtime image. Base images are build arguments so that the image also builds
# where no registry is reachable (tests/container builds it on local images made
# by scripts/base-images, see scripts/image):
#   docker build -t iplookup .   (or podman build)
#   docker run -p 8080:8080 --read-only iplookup
ARG BUILDER_IMAGE=docker.io/library/rust:1-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
# Dependencies first, on stand-in sources: this layer is rebuilt only when the
# manifests, Cargo.lock or the benchmarks change, not on every change of the code.
# (cargo needs every target's file to exist: the benchmarks are copied as they are.)
COPY Cargo.toml Cargo.lock ./
COPY crates/iplookup-data/Cargo.toml crates/iplookup-data/
# The generated Rust client is a workspace member the binary does not use:
# only its manifest is needed here (and stand-ins for its files).
COPY crates/iplookup-client/Cargo.toml crates/iplookup-client/
COPY benches benches
RUN mkdir -p src/bin/iplookup crates/iplookup-data/src crates/iplookup-client/src \
    && echo 'fn main() {}' > build.rs \
    && echo 'fn main() {}' > src/bin/iplookup/main.rs \
    && echo 'fn main() {}' > crates/iplookup-client/build.rs \
    && touch src/lib.rs crates/iplookup-data/src/lib.rs crates/iplookup-client/src/lib.rs \
    && cargo build --release --locked --bin iplookup \
    && rm -rf src build.rs crates/iplookup-data/src crates/iplookup-client/src crates/iplookup-client/build.rs
COPY build.rs ./
COPY crates crates
COPY src src
COPY data data
COPY assets assets
# The stand-ins' build outputs are older than the real sources: cargo rebuilds
# the two crates (and runs build.rs), not the dependencies. The binary, its
# manual pages and completions go to /out in the same step, so that target/
# may be a cache volume (podman build -v, as scripts/image does).
RUN touch build.rs src/bin/iplookup/main.rs src/lib.rs crates/iplookup-data/src/lib.rs \
    && cargo build --release --locked --bin iplookup \
    && mkdir -p /out/bin /out/man /out/completions /out/data \
    && cp target/release/iplookup /out/bin/iplookup \
    && strip /out/bin/iplookup \
    && /out/bin/iplookup man --out-dir /out/man \
    && gzip -9n /out/man/*.1 \
    && /out/bin/iplookup completions bash > /out/completions/iplookup \
    && /out/bin/iplookup completions zsh > /out/completions/_iplookup \
    && /out/bin/iplookup completions fish > /out/completions/iplookup.fish \
    && chown 65532:65532 /out/data

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/bin/iplookup /usr/local/bin/iplookup
COPY --from=build /out/man /usr/local/share/man/man1
COPY --from=build /out/completions/iplookup /usr/local/share/bash-completion/completions/iplookup
COPY --from=build /out/completions/_iplookup /usr/local/share/zsh/site-functions/_iplookup
COPY --from=build /out/completions/iplookup.fish /usr/local/share/fish/vendor_completions.d/iplookup.fish
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
