#!/usr/bin/env bash
# Builds the two base images the Dockerfile names, from Debian packages alone, for machines
# that reach Debian's mirror and npm's registry but no image registry (docs/decisions/1730).
#   build base:   bookworm minbase + Node 24 + npm, as node:24-bookworm-slim
#   runtime base: bookworm libc6 + libstdc++6 (extracted, no shell), and a "nonroot" user
# Each is tagged with a hash of this recipe (and of the machine's extra CA certificates, which
# the build base trusts so that npm reaches the registry through the machine's proxy), and is
# built only when that tag is missing. Prints the two build arguments for the Dockerfile.
set -euo pipefail

engine="${CONTAINER_ENGINE:-podman}"
suite=bookworm
npm_version=11.19.1
node_bin="$(cd "$(dirname "$0")/../.." && npx --no-install node -p process.execPath)"
extra_cas=(/usr/local/share/ca-certificates/*.crt)
[ -e "${extra_cas[0]}" ] || extra_cas=()
recipe_hash="$( ("$node_bin" --version; cat "$0"; [ ${#extra_cas[@]} -eq 0 ] || cat "${extra_cas[@]}") | sha256sum | cut -c1-12)"
build_image="localhost/flagstaff-build-base:$recipe_hash"
runtime_image="localhost/flagstaff-runtime-base:$recipe_hash"

# Leaner layers: no manuals, documentation or translations in either base.
slim=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/info/*')

has_image() { "$engine" image exists "$1" 2>/dev/null; }

import_tarball() { # name tarball
  "$engine" import --quiet --change 'CMD ["/bin/sh"]' "$2" "$1" >/dev/null
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! has_image "$build_image"; then
  echo "building $build_image from Debian $suite packages" >&2
  # What the Dockerfile's default build base (node:24-bookworm-slim) has: Node 24 (the binary
  # this checkout's `npm ci` brought, from the `node` package) and npm (from the registry).
  [ "$("$node_bin" -p 'process.versions.node.split(".")[0]')" = 24 ] || { echo "run npm ci first: Node 24 is missing" >&2; exit 1; }
  mkdir "$work/cas" "$work/npm"
  [ ${#extra_cas[@]} -eq 0 ] || cp "${extra_cas[@]}" "$work/cas/"
  (cd "$work/npm" && npm pack --silent "npm@$npm_version" >/dev/null && tar xzf npm-*.tgz && rm npm-*.tgz)
  cp "$node_bin" "$work/node"
  mmdebstrap --quiet --variant=minbase --include=ca-certificates "${slim[@]}" \
    --customize-hook="sync-in $work/cas /usr/local/share/ca-certificates/" \
    --customize-hook='chroot "$1" update-ca-certificates >/dev/null 2>&1' \
    --customize-hook="copy-in $work/node /usr/local/bin/" \
    --customize-hook='mkdir -p "$1/usr/local/lib/node_modules/npm" "$1/usr/local/etc"' \
    --customize-hook="sync-in $work/npm/package /usr/local/lib/node_modules/npm/" \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
    --customize-hook='printf "cafile=/etc/ssl/certs/ca-certificates.crt\nfund=false\naudit=false\nupdate-notifier=false\n" >"$1/usr/local/etc/npmrc"' \
    "$suite" "$work/build.tar"
  import_tarball "$build_image" "$work/build.tar"
  rm -f "$work/build.tar"
fi

if ! has_image "$runtime_image"; then
  echo "building $runtime_image from Debian $suite packages" >&2
  # Extracted, not installed: the C and C++ runtime libraries Node links against, and no
  # shell, package manager or maintainer scripts (like a distroless base).
  mmdebstrap --quiet --variant=extract --include=libc6,libgcc-s1,libstdc++6,base-files,netbase,tzdata "${slim[@]}" \
    --customize-hook='printf "root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/usr/sbin/nologin\n" >"$1/etc/passwd"' \
    --customize-hook='printf "root:x:0:\nnonroot:x:65532:\n" >"$1/etc/group"' \
    --customize-hook='mkdir -p "$1/tmp" && chmod 1777 "$1/tmp"' \
    --customize-hook='rm -rf "$1"/var/log/* "$1"/usr/share/man "$1"/usr/share/info "$1"/usr/share/locale "$1"/usr/share/lintian' \
    "$suite" "$work/runtime.tar"
  "$engine" import --quiet --change 'USER 65532:65532' "$work/runtime.tar" "$runtime_image" >/dev/null
fi

echo "BUILD_IMAGE=$build_image"
echo "RUNTIME_IMAGE=$runtime_image"
