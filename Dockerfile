# syntax=docker/dockerfile:1
# taintlint as a container image: one static binary (musl) on an empty base, run as a
# non-root user, with a /tmp.
#
#   docker build -t taintlint .
#   docker run --rm -v "$PWD:/src" taintlint                    # taintlint check . in /src
#   docker run --rm -v "$PWD:/src" taintlint check k8s --format sarif
#   docker run --rm -u "$(id -u):$(id -g)" -v "$PWD:/src" taintlint check --fix k8s
#
# It runs as UID/GID 65532 (no name: the image has no /etc/passwd); `--fix` writes files in the
# mounted repository, so give it your own IDs with `-u` there, and the fixed files stay yours.
#
# The release workflow builds it for linux/amd64 and linux/arm64 and pushes it to
# ghcr.io/<owner>/taintlint:<version>. Where no container builder is available, tests/docker.rs
# assembles this build's context (the COPY lines below, after .dockerignore) in a temporary
# folder and builds it with this file's cargo command and flags (.ci/static-build, run by
# .ci/run).

FROM rust:1.95-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /build
# build.rs defines the version the code reads (TAINTLINT_VERSION): without it nothing builds.
COPY Cargo.toml Cargo.lock build.rs README.md LICENSE-MIT LICENSE-APACHE taintlint.default.yaml ./
COPY src src
COPY rules rules
# Alpine's Rust targets musl; crt-static links the C runtime in, so the binary needs nothing.
# The flag needs an explicit --target: without one, RUSTFLAGS also reach the proc-macro crates
# (clap_derive), which cannot be built static ("cannot produce proc-macro").
ENV RUSTFLAGS="-C target-feature=+crt-static"
RUN target="$(uname -m)-unknown-linux-musl" \
    && cargo build --release --locked --target "$target" \
    && cp "target/$target/release/taintlint" /taintlint \
    && /taintlint --version \
    && mkdir -p /rootfs/tmp /rootfs/src \
    && chmod 1777 /rootfs/tmp

FROM scratch
# /tmp (sticky, writable by all) for taintlint's spill files; /src, the working directory.
COPY --from=build /rootfs/ /
COPY --from=build /taintlint /taintlint
COPY LICENSE-MIT LICENSE-APACHE /licenses/
USER 65532:65532
WORKDIR /src
ENTRYPOINT ["/taintlint"]
CMD ["check", "."]
