#!/usr/bin/env bash
# Vendors swagger-ui-dist from the npm registry into gateway/swaggerui/dist:
# only the stylesheet, the bundle, the licences and a NOTICE naming the
# version. The tarball is checked against the sha512 the registry publishes
# for that version before anything is unpacked.
#
#   tools/swagger-ui/vendor.sh            # the version pinned below
#   tools/swagger-ui/vendor.sh 5.35.0     # another one (then update VERSION
#                                         # here and commit both)
set -euo pipefail
VERSION="${1:-5.35.0}"
PKG=swagger-ui-dist
cd "$(dirname "$0")/../.."
dest=gateway/swaggerui/dist

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Integrity as the registry states it ("sha512-<base64>").
integrity="$(npm view "$PKG@$VERSION" dist.integrity)"
case "$integrity" in
  sha512-*) ;;
  *) echo "vendor.sh: no sha512 integrity for $PKG@$VERSION in the registry (got '$integrity')" >&2; exit 1 ;;
esac

(cd "$tmp" && npm pack --silent "$PKG@$VERSION" >/dev/null)
tarball="$tmp/$PKG-$VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$got" != "$integrity" ]; then
  echo "vendor.sh: $PKG-$VERSION.tgz: integrity $got, registry says $integrity" >&2
  exit 1
fi

mkdir "$tmp/x"
tar -xzf "$tarball" -C "$tmp/x"
src="$tmp/x/package"
rm -rf "$dest"
mkdir -p "$dest"
for f in swagger-ui.css swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt LICENSE; do
  cp "$src/$f" "$dest/$f"
done
# The bundle's last line names a source map that is not vendored; a
# browser with its developer tools open would ask for it and get 404.
sed -i -e '/^\/\/# sourceMappingURL=/d' -e '/^\/\*# sourceMappingURL=.*\*\/$/d' "$dest/swagger-ui.css" "$dest/swagger-ui-bundle.js"
if grep -q 'sourceMappingURL=' "$dest/swagger-ui.css" "$dest/swagger-ui-bundle.js"; then
  echo "vendor.sh: a source map reference is left in the vendored files" >&2
  exit 1
fi
# The package's own NOTICE (Apache 2.0 asks that it travel with the
# files), then what was taken and from where.
{ cat "$src/NOTICE"; echo; } >"$dest/NOTICE"
cat >>"$dest/NOTICE" <<NOTICE
This directory holds files of $PKG $VERSION (Swagger UI), from the npm
registry tarball $PKG-$VERSION.tgz ($integrity),
vendored by tools/swagger-ui/vendor.sh: swagger-ui.css and
swagger-ui-bundle.js (source map references removed), the licences of
the libraries in the bundle (swagger-ui-bundle.js.LICENSE.txt) and the
package's LICENSE (Apache License 2.0).
NOTICE
printf '%s\n' "$VERSION" >"$dest/VERSION"
echo "vendored $PKG@$VERSION into $dest"
