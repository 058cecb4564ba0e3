# syntax=docker/dockerfile:1.7
#
# One Dockerfile for every program of the repository; the build argument
# PROGRAM selects which one of programs.txt (devidp, search-admin, jobs or
# gateway):
#
#   docker build --build-arg PROGRAM=jobs --build-arg VERSION=$(git describe --tags --always) \
#     -t ghcr.io/municipal-apis/jobs:$(git describe --tags --always) .
#
# The result is a static binary at /usr/local/bin/app on distroless/static,
# running as the unprivileged user 65532, plus /usr/local/bin/probe, the
# health check for a base image without shell or curl (deploy/cmd/probe).

# The toolchain matches the go directive of go.work (checked by deploy/validate).
FROM --platform=$BUILDPLATFORM golang:1.26.8-bookworm AS build
ARG PROGRAM
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
ENV CGO_ENABLED=0 GOWORK=off GOTOOLCHAIN=local GOFLAGS=-trimpath
WORKDIR /src
COPY . .
# programs.txt names each program's module and main package; the program
# builds alone (GOWORK=off) through its module's replace directive for ../pkg.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    set -eu; \
    entry="$(awk -v p="${PROGRAM:-}" '$1 == p && NF == 3 {print $2, $3}' programs.txt)"; \
    if [ -z "$entry" ]; then \
      echo "PROGRAM '${PROGRAM:-}' is not one of:" $(awk '$1 ~ /^[a-z]/ && NF == 3 {print $1}' programs.txt) >&2; exit 1; \
    fi; \
    set -- $entry; module=$1; main=$2; \
    export GOOS="${TARGETOS:-linux}" GOARCH="${TARGETARCH:-amd64}"; \
    cd "/src/${module}"; \
    go build -ldflags "-s -w -X github.com/municipal-apis/platform/pkg/version.Version=${VERSION}" \
      -o /out/app "./${main#./${module}/}"; \
    cd /src/deploy; \
    go build -ldflags "-s -w" -o /out/probe ./cmd/probe

# distroless/static: CA certificates, tzdata and /etc/passwd, no shell.
# Pinned by digest; the tag says what it is, the digest decides which image it is.
FROM gcr.io/distroless/static-debian12:nonroot@sha256:d093aa3e30dbadd3efe1310db061a14da60299baff8450a17fe0ccc514a16639 AS runtime
ARG PROGRAM
ARG VERSION=dev
LABEL org.opencontainers.image.title="${PROGRAM}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/municipal-apis/platform" \
      org.opencontainers.image.description="Municipal services API platform: ${PROGRAM}"
COPY --from=build /out/app /usr/local/bin/app
COPY --from=build /out/probe /usr/local/bin/probe
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/app"]
