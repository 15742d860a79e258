# killable: Coccinelle rules that make Linux syscall paths killable.
# The front door: every target a user runs is here; the work is in the
# scripts/killable package, run as `python3 -m killable COMMAND`.

SHELL := /bin/bash
PYTHON ?= python3
SPATCH ?= spatch
CACHE ?= $(HOME)/.cache/killable
KSRC_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
KCACHE := $(CACHE)/linux-6.1
KDIR ?= $(KCACHE)
MODE ?= report
J ?= $(shell nproc)
M ?=
COCCI ?=
V ?= 0
SPFLAGS ?=
DEBUG_FILE ?=

export PYTHONDONTWRITEBYTECODE := 1
# Where the rules keep the tree's header summaries (killable.scan.effects).
export KILLABLE_CACHE := $(CACHE)
KILLABLE = PYTHONPATH=$(CURDIR)/scripts $(PYTHON) -m killable

DEB_PACKAGES := coccinelle sparse linux-source-6.1 qemu-system-x86 \
	bc bison flex libelf-dev libssl-dev cpio kmod gcc make git \
	python3 python3-ply python3-git chromium b4 parallel

.PHONY: help deps kernel-cache coccicheck check check-fast rules

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## make deps: install spatch, sparse, qemu and linux-source-6.1, unpack the tree
deps: $(CACHE)/.deps-ok kernel-cache

# Re-checked whenever the Makefile (and so the package list) is newer.
$(CACHE)/.deps-ok: Makefile
	@mkdir -p $(CACHE)
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
			{ echo "deps: apt-get install failed for:$$missing" >&2; exit 1; }; \
	fi
	@touch $@

# The cache is a git repo so that spatch --use-gitgrep and `git diff` work.
# One commit of 75,000 files would start `git gc --auto` (a full repack of
# the kernel, in the background, during the first audit): automatic gc is
# off in the cache, also in a cache made before this was so.
GIT_NO_AUTO_GC = git config gc.auto 0 && git config maintenance.auto false
kernel-cache: $(KCACHE)/.killable-ok
	@test "$$(git -C $(KCACHE) config --get gc.auto)" = 0 || \
		{ cd $(KCACHE) && $(GIT_NO_AUTO_GC); }

$(KCACHE)/.killable-ok: | $(CACHE)/.deps-ok
	@test -f $(KSRC_TARBALL) || { echo "deps: $(KSRC_TARBALL) missing (apt-get install linux-source-6.1)" >&2; exit 1; }
	@echo "deps: unpacking $(KSRC_TARBALL) into $(KCACHE)"
	@rm -rf $(KCACHE).tmp && mkdir -p $(KCACHE).tmp
	@tar -C $(KCACHE).tmp -xf $(KSRC_TARBALL) --strip-components=1
	@cd $(KCACHE).tmp && git init -q && $(GIT_NO_AUTO_GC) && git add -A -f && \
		git -c user.name=killable -c user.email=killable@localhost \
		commit -q -m "linux $$(make -s kernelversion) (Debian linux-source-6.1)"
	@rm -rf $(KCACHE) && mv $(KCACHE).tmp $(KCACHE)
	@touch $@

## make rules: regenerate cocci/*.cocci from cocci/templates and cocci/data
rules:
	@$(KILLABLE) rules

## make coccicheck [KDIR=tree] [M=subdir] [MODE=patch|report|context|org] [COCCI=cocci/x.cocci] [J=n]
coccicheck: $(if $(filter $(KCACHE),$(KDIR)),kernel-cache)
	@$(KILLABLE) coccicheck --kdir $(KDIR) --mode $(MODE) -j $(J) --spatch $(SPATCH) \
		$(if $(M),-m $(M)) $(if $(COCCI),--cocci $(COCCI)) \
		$(if $(REACH),--reach $(REACH)) $(if $(filter-out 0,$(V)),-v) \
		--spflags="$(SPFLAGS)"

# --- audit ---
# make audit [M=subdir] [J=n]: rules over the tree, joined with the cross-file
# call graph; reports in reports/<tree>/.  make hung LOG=dmesg.txt maps
# hung-task traces to audited sites.  make bench [FULL=1 [J1=1]] [BENCH_M=dir]
# compares with coccicheck; make bench FAMILIES=dir,dir times each family.
# make check-audit runs tests/audit/.
AUDIT_FLAGS ?=
LOG ?=
FULL ?=
J1 ?=
FAMILIES ?=
BENCH_M ?= drivers/char

.PHONY: audit hung bench check-audit

## make audit [KDIR=tree] [M=subdir] [J=n] [AUDIT_FLAGS=...]: every sleep site, verdicts and chains -> reports/<tree>/
audit: $(if $(filter $(KCACHE),$(KDIR)),kernel-cache)
	$(KILLABLE) audit --kdir $(KDIR) -j $(J) --cache $(CACHE) --kcache $(KCACHE) --spatch $(SPATCH) \
		$(if $(M),-M $(M)) $(if $(SPFLAGS),--spflags="$(SPFLAGS)") $(AUDIT_FLAGS)

## make hung LOG=dmesg.txt: hung-task traces -> audited sites, verdicts and fixes
hung:
	@test -n "$(LOG)" || { echo "hung: give LOG=dmesg.txt" >&2; exit 2; }
	$(KILLABLE) hung --kdir $(KDIR) --cache $(CACHE) --kcache $(KCACHE) --spatch $(SPATCH) \
		$(if $(M),-M $(M)) $(LOG)

## make bench [FULL=1 [J1=1]] [BENCH_M=dir] [FAMILIES=dir,dir]: the audit against coccicheck double_lock
bench: $(if $(filter $(KCACHE),$(KDIR)),kernel-cache)
	$(KILLABLE) bench --kdir $(KDIR) -j $(J) --spatch $(SPATCH) \
		$(if $(FAMILIES),--families $(FAMILIES),$(if $(FULL),--full $(if $(J1),,--no-j1),-M $(BENCH_M)))

## make check-audit: tests/audit (graph, reports, resume, shards, hung traces, HTML)
check-audit:
	@$(RUNTESTS) audit

# --- hang risk ---
RISK_FLAGS ?=
.PHONY: risk check-risk

## make risk [KDIR=tree] [RISK_FLAGS=--validate]: hang risk of every sleep site (long sleeps, lock holders, wakers)
risk: $(if $(filter $(KCACHE),$(KDIR)),kernel-cache)
	$(KILLABLE) risk --kdir $(KDIR) --cache $(CACHE) -j $(J) $(RISK_FLAGS)

## make check-risk: tests/risk (long-sleep table, critical sections, a small tree; seconds)
check-risk:
	@$(RUNTESTS) risk

# --- kernel ---
# The test kernel (tests/kernel/README.md): kernel-patches/ applied to a
# clone of $(KCACHE), killdemo converted by the tree's own coccicheck with
# cocci/*.cocci, one tinyconfig-based bzImage booted under qemu (TCG).
# Both targets share the build; stamps in $(KERNEL_BUILD_DIR) skip the
# steps whose inputs did not change.
KERNEL_BUILD_DIR ?= $(CACHE)/build-kernel
KERNEL_JOBS ?= 2
KERNELTEST = $(PYTHON) tests/kernel/kerneltest.py --kcache $(KCACHE) \
	--build-dir $(KERNEL_BUILD_DIR) --jobs $(KERNEL_JOBS)

# Every check-* target runs tests/run.py, the one runner (its SUITES list
# names each suite's commands and tier); `make check` is --tier all.
RUNTESTS = $(PYTHON) tests/run.py --cache $(CACHE) --kcache $(KCACHE) --kdir $(KDIR) \
	--spatch $(SPATCH) -j $(J) --kernel-build-dir $(KERNEL_BUILD_DIR) \
	--kernel-jobs $(KERNEL_JOBS) --batches-m $(BATCHES_M) \
	--boot-fi-build-dir $(BOOT_FI_BUILD_DIR)

.PHONY: kernel-patches-check check-kernel kernel-build

## make kernel-patches-check: checkpatch --strict the series, boot it, KUnit must pass
kernel-patches-check: kernel-cache
	@$(RUNTESTS) kernel-patches

## make check-kernel: boot killdemo as written and as converted, check the table
# Always a real boot (~30 s): the build is cached, the proof is not.
check-kernel: kernel-cache
	@$(RUNTESTS) kernel

kernel-build: kernel-cache
	$(KERNELTEST) build

# The boot-fi kernel (tests/kernel/README.md, "make check-boot-fi"): real
# drivers with the project's patch applied, booted with fail_killable,
# lockdep and kmemleak; its own build directory.
BOOT_FI_BUILD_DIR ?= $(CACHE)/build-boot-fi
BOOTFI = $(PYTHON) tests/kernel/bootfi.py --kcache $(KCACHE) \
	--build-dir $(BOOT_FI_BUILD_DIR) --jobs $(KERNEL_JOBS)
REPORTS ?=

.PHONY: check-boot-fi boot-fi-reach

## make check-boot-fi: boot converted real drivers with fail_killable; no lockdep/kmemleak/WARN report, coverage >= floor
check-boot-fi: kernel-cache
	@$(RUNTESTS) boot-fi

## make boot-fi-reach REPORTS=reports/linux-6.1: refresh tests/kernel/boot-fi/reach.tsv from a whole-tree audit
boot-fi-reach: kernel-cache
	@test -n "$(REPORTS)" -a -f "$(REPORTS)/reach.tsv" || \
		{ echo "boot-fi-reach: give REPORTS=dir with a whole-tree audit's reach.tsv" >&2; exit 2; }
	-@$(BOOTFI) build >/dev/null
	@$(BOOTFI) refresh-reach --reports $(REPORTS)

## make check-kernel-parsers: unit tests of the console/diff parsers (no kernel)
.PHONY: check-kernel-parsers
check-kernel-parsers:
	@$(RUNTESTS) kernel-parsers

# --- rule tests ---
# tests/cases/NAME.c against cocci/<family>.cocci (tests/run_rule_tests.py,
# see tests/README.md).  K=PATTERN selects cases; UPDATE=1 rewrites the
# expected .res/.stdout from the current rules (review them after).
K ?=
UPDATE ?=

.PHONY: check-rules

## make check-rules [K=pattern] [UPDATE=1]: run the rule test cases (tests/cases)
check-rules:
	@$(RUNTESTS) rules $(if $(K),-k '$(K)') $(if $(filter 1,$(UPDATE)),--update) \
		$(if $(filter 1,$(V)),-v)

## make check-unit: unit tests of the verdict checks on small C snippets (no spatch)
.PHONY: check-unit
check-unit:
	@$(RUNTESTS) unit

## make check-fast: the quick tier (< 2 min): generated rules fresh, unit tests, rule fixtures
check-fast: $(CACHE)/.deps-ok
	@$(RUNTESTS) --tier fast

check-generated: $(CACHE)/.deps-ok
	@$(RUNTESTS) generated

## make check-smoke: the rules under the kernel's own coccicheck, and patch/report mode over 6.1 drivers/char, drivers/misc, fs/proc
check-smoke: kernel-cache
	@$(RUNTESTS) smoke

## make check-readme: every command the README shows, run as written through make on 6.1 (tests/readme)
.PHONY: check-readme
check-readme: kernel-cache
	@$(RUNTESTS) readme

## make check-cli: bad input, the user's files, the first run (tests/cli, small trees; < 1 min)
.PHONY: check-cli
check-cli:
	@$(RUNTESTS) cli

## make check: every test (fast tier, real-tree smoke, CLI, precision corpus, audit, risk, batches, kernel patches, the boot test and the booted fault injection)
## make check-precision: the reviewed real 6.1 sites keep their verdicts and hunks (tests/precision)
.PHONY: check-precision
check-precision: kernel-cache
	@$(RUNTESTS) precision

check: deps
	@$(RUNTESTS) --tier all

# --- batches ---
# make batches [KDIR=tree] M=subdir [REACH=file]: the patch-mode diff as patch
# series, one per MAINTAINERS section, in $(BATCHES_OUT)/<series>/ with
# SUMMARY.md (scripts/killable/batches/; README.md, "Patch series").
# Commits live in a worktree under $(CACHE)/batches, the allmodconfig build
# in $(CACHE)/batches-obj (prepared once).  make check-batches runs
# tests/batches/ on 6.1 drivers/misc/mei.
BATCHES_OUT ?= out/batches
BATCHES_M ?= drivers/misc/mei
BATCHES_FLAGS ?=
BATCHES_J := $(shell n=$(J); [ "$$n" -gt 2 ] 2>/dev/null && n=2; echo $${n:-2})

.PHONY: batches check-batches

## make batches [KDIR=tree] M=subdir [REACH=file]: reviewable patch series per maintainer in out/batches/
batches: $(if $(filter $(KCACHE),$(KDIR)),kernel-cache)
	@test -n "$(M)" || { echo "batches: give M=subdir (e.g. M=drivers/misc/mei)" >&2; exit 2; }
	@$(KILLABLE) batches --kdir $(KDIR) -m $(M) --cache $(CACHE) \
		--out $(BATCHES_OUT) -j $(BATCHES_J) $(if $(REACH),--reach $(REACH)) $(BATCHES_FLAGS)

## make check-batches: series for 6.1 drivers/misc/mei: git am, checkpatch, compile, thread shape, refusals
check-batches: kernel-cache
	@$(RUNTESTS) batches
