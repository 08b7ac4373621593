#!/usr/bin/env bash
# Builds test/go-client/*.go (main.go and its area files), the program that runs the reference's own Go client
# (github.com/hashicorp/nomad/api, vendored in test/go-client/api/) against an agent.
#
#   scripts/go-client.sh [OUTPUT]    # default OUTPUT: test/go-client/bin/go-client
#   scripts/go-client.sh --missing   # the Debian packages the build needs that are not installed
#
# Needs Debian's Go (golang-go, 1.19) and the Go packages it installs under /usr/share/gocode
# (.ci/run installs them; see test/go-client/README.md). No Go module proxy is reachable, so the
# build runs in GOPATH mode: a GOPATH of its own holds a copy of the vendored client with
# test/go-client/go119.patch applied (what Go 1.19 and Debian's packages need; the vendored
# files stay the reference's), and the program beside it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source_dir="$root/test/go-client"
# Where Debian installs its Go packages' source (the -dev packages), searched after the build's own GOPATH.
debian_gopath=/usr/share/gocode

# Debian 12's packages for what the client imports, each with the directory it installs
# (go119.patch points the imports Debian has under other names at these).
declare -A package_dirs=(
  [golang-github-gorilla-websocket-dev]=github.com/gorilla/websocket
  [golang-github-hashicorp-go-cleanhttp-dev]=github.com/hashicorp/go-cleanhttp
  [golang-github-hashicorp-go-rootcerts-dev]=github.com/hashicorp/go-rootcerts
  [golang-github-mitchellh-mapstructure-dev]=github.com/mitchellh/mapstructure
  [golang-github-gorhill-cronexpr-dev]=github.com/gorhill/cronexpr
  [golang-golang-x-exp-dev]=golang.org/x/exp
)

if [[ "${1:-}" == "--missing" ]]; then
  command -v go >/dev/null 2>&1 || echo golang-go
  for package in $(printf '%s\n' "${!package_dirs[@]}" | sort); do
    [[ -d "$debian_gopath/src/${package_dirs[$package]}" ]] || echo "$package"
  done
  exit 0
fi

output="${1:-$source_dir/bin/go-client}"
missing="$("$0" --missing | tr '\n' ' ')"
[[ -z "$missing" ]] || { echo "missing Debian packages: apt-get install $missing" >&2; exit 1; }

gopath="$(mktemp -d "${TMPDIR:-/tmp}/bexpr-go-client.XXXXXX")"
trap 'rm -rf "$gopath"' EXIT
api_dir="$gopath/src/github.com/hashicorp/nomad/api"
program_dir="$gopath/src/bexpr/go-client"
mkdir -p "$api_dir" "$program_dir"
cp -R "$source_dir/api/." "$api_dir/"
# go.mod would be ignored in GOPATH mode; removed so that no tool takes the copy for a module.
rm -f "$api_dir/go.mod" "$api_dir/go.sum"
# git apply, not patch(1): git is there wherever the checkout is, and it refuses a patch that does not apply.
(cd "$api_dir" && GIT_CEILING_DIRECTORIES="$gopath" git apply "$source_dir/go119.patch")
cp "$source_dir"/*.go "$program_dir/"

mkdir -p "$(dirname "$output")"
# GOFLAGS is cleared: a -mod flag from the environment is refused in GOPATH mode.
(cd "$program_dir" && GO111MODULE=off GOFLAGS= GOPATH="$gopath:$debian_gopath" go build -o "$output" .)
echo "built $output with $(go version | awk '{print $3}')"
