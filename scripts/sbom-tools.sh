#!/usr/bin/env bash
# Installs the validators and the reader the SBOM tests run (as root, on
# Debian bookworm; .ci/run calls it), as three commands on PATH:
#
#   pyspdxtools   the SPDX project's own validator (spdx-tools 0.8, Python).
#                 Bookworm has no python3-spdx-tools and PyPI is not
#                 reachable here: the .deb comes from Debian unstable
#                 (python3-spdx-tools is in sid only), with python3-beartype,
#                 both pure Python, unpacked into $DIR and run by bookworm's
#                 python3 with its other dependencies from bookworm.
#   cdx-validate  the CycloneDX project's JavaScript library
#                 (@cyclonedx/cyclonedx-library 7.1.0, the last for Node 18:
#                 bookworm's nodejs) validating against the official strict
#                 CycloneDX 1.6 JSON schema (scripts/cdx-validate.js), from npm.
#                 cyclonedx-python-lib (Debian's python3-cyclonedx-lib, trixie)
#                 cannot validate on bookworm: its JSON validator needs
#                 python3-referencing, whose python3-rpds-py is compiled for
#                 Python 3.13+.
#   syft          anchore's SBOM tool (the reader under grype): the tests
#                 check that `syft convert` keeps every package of both
#                 documents with its purl and CPE. Built from the Go module
#                 proxy with the Go the tests use (go install, pinned; a few
#                 minutes on 2 cores); Debian has no syft.
#
# ntia-conformance-checker (NTIA minimum elements) is in neither Debian nor
# npm, and PyPI is not reachable: the tests check the minimum elements
# themselves (debredist/sbom_test.go: TestSBOMNTIAMinimumElements).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${DEBREDIST_SBOM_TOOLS:-/opt/debredist-sbom-tools}"
BIN="${DEBREDIST_SBOM_BIN:-/usr/local/bin}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends python3 python3-click python3-license-expression python3-ply \
  python3-rdflib python3-semantic-version python3-uritools python3-xmltodict python3-yaml >/dev/null
# Node from Debian, unless one is there already (a NodeSource nodejs bundles npm
# and conflicts with Debian's npm).
command -v npm >/dev/null || apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null

rm -rf "$DIR" && mkdir -p "$DIR/apt/sources" "$DIR/apt/lists/partial" "$DIR/debs" "$DIR/root"
cat > "$DIR/apt/sources/sid.sources" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt=(-o Dir::Etc::SourceParts="$DIR/apt/sources" -o Dir::Etc::SourceList=/dev/null -o Dir::State::Lists="$DIR/apt/lists" -o Dir::Cache="$DIR/apt/cache")
mkdir -p "$DIR/apt/cache/archives/partial"
apt-get "${apt[@]}" update -qq
(cd "$DIR/debs" && apt-get "${apt[@]}" download python3-spdx-tools python3-beartype 2>&1 | grep -v unsandboxed || true)
for d in "$DIR"/debs/*.deb; do
  dpkg-deb -x "$d" "$DIR/root"
  echo "sbom-tools: $(dpkg-deb -f "$d" Package) $(dpkg-deb -f "$d" Version)"
done
cat > "$BIN/pyspdxtools" <<SH
#!/bin/sh
PYTHONPATH="$DIR/root/usr/lib/python3/dist-packages" exec /usr/bin/python3 "$DIR/root/usr/bin/pyspdxtools" "\$@"
SH
chmod 755 "$BIN/pyspdxtools"

npm install --silent --no-audit --no-fund --prefix "$DIR/npm" \
  @cyclonedx/cyclonedx-library@7.1.0 ajv@8.17.1 ajv-formats@3.0.1 ajv-formats-draft2019@1.6.1 >/dev/null
cp scripts/cdx-validate.js "$DIR/cdx-validate.js"
cat > "$BIN/cdx-validate" <<SH
#!/bin/sh
NODE_PATH="$DIR/npm/node_modules" exec node "$DIR/cdx-validate.js" "\$@"
SH
chmod 755 "$BIN/cdx-validate"
echo "sbom-tools: @cyclonedx/cyclonedx-library $(node -p "require('$DIR/npm/node_modules/@cyclonedx/cyclonedx-library/package.json').version")"

# syft, pinned (the same documents, the same verdict); GOFLAGS cleared: a
# -mod=vendor meant for this module would make go install pkg@version refuse.
SYFT_VERSION=v1.57.1
GOFLAGS= GOBIN="$BIN" go install "github.com/anchore/syft/cmd/syft@$SYFT_VERSION"
echo "sbom-tools: syft $(go version -m "$BIN/syft" | awk '$1 == "mod" {print $3}')"
