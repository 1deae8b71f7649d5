# syntax=docker/dockerfile:1
# taintlint as a container image: one static binary (musl) on an empty base.
#
#   docker build -t taintlint .
#   docker run --rm -v "$PWD:/src" taintlint                    # taintlint check . in /src
#   docker run --rm -v "$PWD:/src" taintlint check k8s --format sarif
#
# The release workflow builds it for linux/amd64 and linux/arm64 and pushes it to
# ghcr.io/<owner>/taintlint:<version>. .ci/static-build builds the binary with the same
# target and flags where a container builder is not available.

FROM rust:1.95-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /build
COPY Cargo.toml Cargo.lock README.md LICENSE-MIT LICENSE-APACHE taintlint.default.yaml ./
COPY src src
COPY rules rules
# Alpine's Rust targets musl; crt-static links the C runtime in, so the binary needs nothing.
ENV RUSTFLAGS="-C target-feature=+crt-static"
RUN cargo build --release --locked \
    && cp target/release/taintlint /taintlint \
    && /taintlint --version

FROM scratch
COPY --from=build /taintlint /taintlint
COPY LICENSE-MIT LICENSE-APACHE /licenses/
WORKDIR /src
ENTRYPOINT ["/taintlint"]
CMD ["check", "."]
