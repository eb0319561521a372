#!/usr/bin/env bash
# The base images the Dockerfile and docker-compose.yml name, made here when no registry gives
# them (scripts/container-check.sh calls it; docs/OPERATIONS.md, "The container check"). For each
# image: kept when `docker image inspect` finds it, else pulled, else a stand-in is made:
#
#   debian:bookworm-slim   a Debian 12 root file system from debootstrap (--variant=minbase),
#                          trimmed like Debian's slim images, imported with `docker import`
#   swift:6.3-bookworm     that + what the official Swift image installs + this machine's Swift
#                          toolchain (/opt/swift, or $SWIFT_TOOLCHAIN) + the package mirrors of
#                          /opt/swift-packages with git's insteadOf rule for https://github.com/
#   postgis/postgis:15-3.4 that + Debian's postgresql-15-postgis-3 behind an entry point that
#                          keeps the upstream image's contract (scripts/container/postgis/)
#
# Every stand-in carries the label org.hearclear.stand-in and, when this machine has them, its
# own certificate authorities (/usr/local/share/ca-certificates/*.crt), which a TLS-intercepting
# egress proxy needs (pip fetches the model over https in the build stage).
set -euo pipefail
cd "$(dirname "$0")/../.."

debian_image=${DEBIAN_IMAGE:-debian:bookworm-slim}
swift_image=${SWIFT_IMAGE:-swift:6.3-bookworm}
postgis_image=${POSTGIS_IMAGE:-postgis/postgis:15-3.4}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
toolchain=${SWIFT_TOOLCHAIN:-/opt/swift}
packages=${SWIFT_PACKAGE_MIRRORS:-/opt/swift-packages}
label=org.hearclear.stand-in

# What a failed step leaves behind: a root file system, a container.
leftovers=()
trap 'for left in "${leftovers[@]}"; do case $left in /tmp/*) rm -rf "$left" ;; *) docker rm -f "$left" >/dev/null 2>&1 ;; esac; done' EXIT

say() { printf '[base-images %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# Present, or pulled: nothing to make.
have() {
    if docker image inspect "$1" >/dev/null 2>&1; then
        say "$1: present ($(docker image inspect -f '{{index .Config.Labels "'$label'"}}' "$1" 2>/dev/null | sed 's/^$/not a stand-in/;s/<no value>/not a stand-in/'))"
        return 0
    fi
    if [ "${PULL:-1}" = 1 ] && timeout 600 docker pull -q "$1" >/dev/null 2>&1; then
        say "$1: pulled"
        return 0
    fi
    return 1
}

make_debian() {
    local root
    root=$(mktemp -d /tmp/hearclear-rootfs.XXXXXX)
    leftovers+=("$root" "$root.log")
    say "$debian_image: debootstrap bookworm from $mirror"
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 \
        || { tail -20 "$root.log" >&2; exit 1; }
    rm -f "$root.log"
    # As Debian's slim images: no manuals, documentation or translations; apt keeps no lists
    # and no packages.
    cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
CFG
    cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG
    printf 'Acquire::Languages "none";\n' >"$root/etc/apt/apt.conf.d/docker-no-languages"
    cat >"$root/etc/apt/sources.list" <<LIST
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
LIST
    find "$root/usr/share/doc" -mindepth 1 -not -name copyright -type f -delete 2>/dev/null || true
    rm -rf "$root"/usr/share/{man,info,locale,groff,lintian}/* "$root"/var/lib/apt/lists/* \
        "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*.log
    local ca
    for ca in /usr/local/share/ca-certificates/*.crt; do
        [ -e "$ca" ] && install -D -m 0644 "$ca" "$root/usr/local/share/ca-certificates/$(basename "$ca")"
    done
    tar -C "$root" --numeric-owner -c . \
        | docker import --change 'CMD ["bash"]' --change "LABEL $label=debootstrap-bookworm-minbase" \
            - "$debian_image" >/dev/null
    say "$debian_image: made ($(docker image inspect -f '{{.Size}}' "$debian_image" | numfmt --to=iec-i --suffix=B))"
}

# What swift:6.x-bookworm installs (swiftlang/swift-docker, 6.x/bookworm/Dockerfile) on Debian's
# full image (libncurses6 is not in slim), then the toolchain copied over /usr as that image
# unpacks it; the programs a build runs must find their libraries (this toolchain's lldb wants
# Python 3.10, missing on the host too: no build runs it). Made with `docker run` and `docker commit`,
# the toolchain and mirrors bound read-only, so that 3 GB never travel as a build context.
make_swift() {
    [ -x "$toolchain/usr/bin/swift" ] || { echo "no Swift toolchain at $toolchain" >&2; exit 1; }
    local container=hearclear-swift-standin-$$
    say "$swift_image: $debian_image + the official image's packages + $toolchain ($("$toolchain/usr/bin/swift" --version 2>&1 | head -1))"
    docker rm -f "$container" >/dev/null 2>&1 || true
    leftovers+=("$container")
    docker run --name "$container" -v "$toolchain:/toolchain:ro" -v "$packages:/mirrors:ro" "$debian_image" bash -euo pipefail -c '
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev \
            libsqlite3-0 libstdc++-12-dev libxml2-dev libz3-dev pkg-config tzdata zlib1g-dev \
            libncurses6 ca-certificates python3 >/dev/null
        rm -rf /var/lib/apt/lists/*
        cp -a /toolchain/usr/. /usr/
        mkdir -p /opt && cp -a /mirrors /opt/swift-packages
        # https://github.com/OWNER/NAME.git is read from /opt/swift-packages/OWNER/NAME.git.
        git config --system url./opt/swift-packages/.insteadOf https://github.com/
        git config --system --add url./opt/swift-packages/.insteadOf git@github.com:
        missing=$(for f in /usr/bin/swift-frontend /usr/bin/swift-build /usr/bin/clang /usr/bin/swift-driver; do
            ldd "$f" | grep "not found" || true; done)
        [ -z "$missing" ] || { echo "the toolchain misses: $missing" >&2; exit 1; }
        swift --version' >/dev/null
    docker commit --change 'CMD ["bash"]' --change "LABEL $label=swift-toolchain-from-$toolchain" \
        "$container" "$swift_image" >/dev/null
    say "$swift_image: made ($(docker image inspect -f '{{.Size}}' "$swift_image" | numfmt --to=iec-i --suffix=B))"
}

make_postgis() {
    say "$postgis_image: $debian_image + postgresql-15-postgis-3 (scripts/container/postgis)"
    docker build -q --build-arg "DEBIAN_IMAGE=$debian_image" --label "$label=debian-postgresql-15-postgis-3" \
        -t "$postgis_image" scripts/container/postgis >/dev/null
    say "$postgis_image: made ($(docker image inspect -f '{{.Size}}' "$postgis_image" | numfmt --to=iec-i --suffix=B))"
}

have "$debian_image" || make_debian
have "$swift_image" || make_swift
have "$postgis_image" || make_postgis
