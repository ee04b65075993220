# Multi-stage build: a static-ish release binary on a small, non-root runtime image.
# docker build -t iplookup . && docker run -p 8080:8080 iplookup
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs ./
COPY src src
COPY data data
COPY assets assets
COPY benches benches
RUN cargo build --release --locked --bin iplookup && strip target/release/iplookup

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/iplookup /usr/local/bin/iplookup
# The embedded data needs nothing else; mount a volume on /data for monthly updates.
ENV IPLOOKUP_LISTEN=0.0.0.0:8080 \
    IPLOOKUP_LOG_FORMAT=json
EXPOSE 8080
# distroless nonroot, numeric so that Kubernetes runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/iplookup"]
CMD ["serve"]
