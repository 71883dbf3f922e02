# make install / make uninstall, with the usual conventions:
#   make install [DESTDIR=/staging] [PREFIX=/usr/local] [BINDIR=...] [MANDIR=...] ...
# Installs exactly four files:
#   $(BINDIR)/retsnoop                  the tool (the DWARF sidecar is embedded in it)
#   $(LIBEXECDIR)/retsnoop/simfail      test helper that provokes kernel errors on demand
#   $(MANDIR)/man8/retsnoop.8           the manual page
#   $(BASHCOMPDIR)/retsnoop             bash completion
# tests/ship/ checks that list; keep the two in step.

PREFIX ?= /usr/local
# sbin and section 8: retsnoop is a system administration tool that needs root
BINDIR ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL ?= install
# gen-errnos runs during the build, so it is built for the build machine
HOSTCC ?= cc

COMPLETION := $(OUTPUT)/retsnoop.bash-completion
GEN_ERRNOS := $(OUTPUT)/gen-errnos

.PHONY: install uninstall deb deb-check test-ship completion

completion: $(COMPLETION)

$(GEN_ERRNOS): completion/gen-errnos.c src/errnos.c src/errnos.h | $(OUTPUT)
	$(call msg,HOSTCC,$@)
	$(Q)$(HOSTCC) -O2 -Wall -Wextra -Isrc completion/gen-errnos.c src/errnos.c -o $@

$(COMPLETION): completion/retsnoop.bash.in $(GEN_ERRNOS)
	$(call msg,GEN,$@)
	$(Q)errnos=$$($(GEN_ERRNOS)) && [ -n "$$errnos" ] && \
		sed "s/@ERRNOS@/$$errnos/" $< > $@.tmp && mv $@.tmp $@

install: $(BIN_DIR)/retsnoop $(BIN_DIR)/simfail man/retsnoop.8 $(COMPLETION)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/retsnoop \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	$(Q)$(INSTALL) -m 0755 $(BIN_DIR)/retsnoop $(DESTDIR)$(BINDIR)/retsnoop
	$(Q)$(INSTALL) -m 0755 $(BIN_DIR)/simfail $(DESTDIR)$(LIBEXECDIR)/retsnoop/simfail
	$(Q)$(INSTALL) -m 0644 man/retsnoop.8 $(DESTDIR)$(MANDIR)/man8/retsnoop.8
	$(Q)$(INSTALL) -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/retsnoop

# Removes what install put there, and retsnoop's own libexec directory once empty.
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/retsnoop $(DESTDIR)$(LIBEXECDIR)/retsnoop/simfail \
		$(DESTDIR)$(MANDIR)/man8/retsnoop.8 $(DESTDIR)$(BASHCOMPDIR)/retsnoop
	$(Q)if [ -d $(DESTDIR)$(LIBEXECDIR)/retsnoop ]; then \
		rmdir $(DESTDIR)$(LIBEXECDIR)/retsnoop; fi

# Cheap checks of what ships (seconds): the installed file list, the man page's lint and its
# agreement with --help/--config-help, the bash completion. Part of make test.
test-ship: $(BIN_DIR)/retsnoop $(BIN_DIR)/simfail $(COMPLETION)
	$(Q)tests/ship/run.sh

# The Debian package (dpkg-buildpackage in a copy of the tree; minutes), and its proof in a
# fresh Debian 12 chroot. Neither is part of make test.
deb:
	$(Q)tools/build-deb.sh $(OUTPUT)/deb

deb-check: deb
	$(Q)tests/ship/deb-check.sh $(OUTPUT)/deb
