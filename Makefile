# killable: Coccinelle rules that make Linux syscall paths killable.
# The front door: every target a user runs is here; the work is in scripts/.

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

DEB_PACKAGES := coccinelle sparse linux-source-6.1 qemu-system-x86 \
	bc bison flex libelf-dev libssl-dev cpio kmod gcc make git \
	python3 chromium

.PHONY: help deps kernel-cache coccicheck check check-fast rules

help:
	@sed -n 's/^## //p' README.md | head -40

## make deps: install spatch, sparse, qemu and linux-source-6.1, unpack the tree
deps: $(CACHE)/.deps-ok kernel-cache

$(CACHE)/.deps-ok:
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
kernel-cache: $(KCACHE)/.killable-ok

$(KCACHE)/.killable-ok: $(CACHE)/.deps-ok
	@test -f $(KSRC_TARBALL) || { echo "deps: $(KSRC_TARBALL) missing (apt-get install linux-source-6.1)" >&2; exit 1; }
	@echo "deps: unpacking $(KSRC_TARBALL) into $(KCACHE)"
	@rm -rf $(KCACHE).tmp && mkdir -p $(KCACHE).tmp
	@tar -C $(KCACHE).tmp -xf $(KSRC_TARBALL) --strip-components=1
	@cd $(KCACHE).tmp && git init -q && git add -A -f && \
		git -c user.name=killable -c user.email=killable@localhost \
		commit -q -m "linux $$(make -s kernelversion) (Debian linux-source-6.1)"
	@rm -rf $(KCACHE) && mv $(KCACHE).tmp $(KCACHE)
	@touch $@
