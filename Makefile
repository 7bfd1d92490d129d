# memcg naturalization for Linux 6.12: the workbench.
# The two commands a newcomer needs: 'make demo' and 'make check'.
SHELL := /bin/bash
.DEFAULT_GOAL := help

help:
	@echo "make demo     set up, build, boot, show the soft limit scenarios"
	@echo "make check    the test suite CI runs: patched and debug kernels (ends with 'N passed, N failed')"
	@echo "make check-vanilla  the controls on the shipped kernel (baseline, knob inert)"
	@echo "make check-debug    the whole debug tier (upstream selftests and stress runs too) on the debug kernel"
	@echo "make bench    the side-by-side benchmark"
	@echo "make tree     build/linux: git tree, tag 'vanilla', series applied"
	@echo "make patches  export build/linux commits into patches/"
	@echo "make check-series  each commit: git am, checkpatch, bzImage in 5 configs, W=1, htmldocs (hours; resumable)"
	@echo "make kernel-VARIANT  build one kernel (vanilla patched debug legacy)"

deps:
	@bash scripts/install-deps.sh

# The tree is made once; 'make tree' again re-applies patches/series.
build/linux/.git: | deps
	@bash scripts/tree.sh

tree: deps
	@bash scripts/tree.sh

patches:
	@bash scripts/export-patches.sh

check-series: build/linux/.git
	@bash scripts/install-deps.sh docs
	@bash scripts/check-series.sh

kernel-%: build/linux/.git
	@bash scripts/build-kernel.sh $*
	@bash scripts/make-initramfs.sh $*
	@bash scripts/make-disks.sh

demo: build/linux/.git
	@bash scripts/demo.sh

check: build/linux/.git
	@bash scripts/check.sh

check-vanilla: build/linux/.git
	@bash scripts/check.sh vanilla

check-debug: build/linux/.git
	@bash scripts/check.sh debug

# placement and cost (bench/run.sh), then the reviewer's scenarios
# (bench/workload.sh: latency, slab, NUMA, THP, knob flips, scale, deep)
bench: build/linux/.git
	@rc=0; bash bench/run.sh || rc=1; bash bench/workload.sh || rc=1; exit $$rc

.PHONY: help deps tree patches check-series demo check check-vanilla check-debug bench
