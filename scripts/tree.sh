#!/bin/bash
# make tree: unpack the shipped 6.12 source into build/linux as a git repo
# whose tag 'vanilla' is the untouched tree, then apply patches/series as
# commits. Also keeps build/src/vanilla, a worktree pinned at the tag, which
# the vanilla (and legacy) kernels are built from.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
TARBALL=/usr/src/linux-source-6.12.tar.xz
TREE=build/linux

if [ ! -f "$TARBALL" ]; then
	echo "tree: $TARBALL missing; run scripts/install-deps.sh (package linux-source-6.12)" >&2
	exit 1
fi

if [ -d "$TREE/.git" ]; then
	cd "$TREE"
	if [ -n "$(git status --porcelain)" ]; then
		echo "tree: $TREE has uncommitted work; commit or stash it first" >&2
		git status --short | head -20 >&2
		exit 1
	fi
	# Refuse to drop commits that were never exported with 'make patches':
	# compare the commits' patch-ids with those of patches/series.
	if [ "${FORCE:-0}" != 1 ]; then
		have=$(git log -p vanilla..HEAD | git patch-id --stable | cut -d' ' -f1 | sort)
		want=$(cd "$TOP/patches" && grep -v '^#' series 2>/dev/null | xargs -r cat |
			git patch-id --stable | cut -d' ' -f1 | sort)
		if [ -n "$(comm -23 <(echo "$have") <(echo "$want") | grep .)" ]; then
			echo "tree: $TREE has commits not in patches/; run 'make patches' first (or FORCE=1 make tree to drop them)" >&2
			exit 1
		fi
	fi
	echo "tree: resetting $TREE to vanilla and reapplying patches/series"
	git checkout -q -B series vanilla
else
	echo "tree: unpacking $TARBALL into $TREE (about 30 s)"
	rm -rf build/linux.tmp build/src
	mkdir -p build/linux.tmp
	tar xJf "$TARBALL" -C build/linux.tmp --strip-components=1
	cd build/linux.tmp
	# Debian's packaging rule '/*' at the end of .gitignore ignores every
	# top-level entry, so 'git add -A' would add nothing. Drop it for good.
	sed -i '/^# Debian packaging: ignore everything/,$d' .gitignore
	git init -q -b series
	git config user.name "${GIT_AUTHOR_NAME:-Memcg Naturalization}"
	git config user.email "${GIT_AUTHOR_EMAIL:-memcg-naturalization@example.org}"
	git config core.abbrev 12
	echo "tree: committing the vanilla tree"
	git add -A
	git commit -q -m "Linux $(make -s kernelversion) as shipped by Debian linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)"
	git tag vanilla
	cd "$TOP"
	mv build/linux.tmp "$TREE"
	cd "$TREE"
fi

n=0
if [ -f "$TOP/patches/series" ]; then
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		git am -q --keep-cr "$TOP/patches/$p" || {
			echo "tree: patch $p does not apply; 'git am --abort' in $TREE" >&2
			exit 1
		}
		n=$((n + 1))
	done < "$TOP/patches/series"
fi
echo "tree: $TREE at $(git describe --tags --always) ($n patches on vanilla)"

# The vanilla worktree the vanilla and legacy kernels build from.
cd "$TOP"
if [ ! -d build/src/vanilla ]; then
	mkdir -p build/src
	git -C "$TREE" worktree add -q --detach "$TOP/build/src/vanilla" vanilla
	echo "tree: vanilla worktree at build/src/vanilla"
fi
