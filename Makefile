# Builds and installs the `waterfall` that the benchmarks measure: a fully static release
# executable (no dynamic loader work at start-up), with the sample feeds `waterfall demo` uses
# and shell completions.
#
#   make install PREFIX=~/.local      # then: ~/.local/bin/waterfall demo (in any folder)
#   make uninstall PREFIX=~/.local
#
# Benchmarks/compare.sh and Benchmarks/serve.sh install with exactly this command.
PREFIX ?= /usr/local
SCRATCH ?= .build-release
RELEASE = -c release --static-swift-stdlib --scratch-path $(SCRATCH) --product waterfall \
	-Xswiftc -static-executable -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
SHARE = $(DESTDIR)$(PREFIX)/share

.PHONY: build install uninstall

build:
	@# glibc warns that the user-database functions CoreFoundation references need NSS at run time: Waterfall never calls them.
	swift build $(RELEASE) 2>&1 | grep -v "in statically linked applications requires at runtime" || true
	test -x "$$(swift build $(RELEASE) --show-bin-path)/waterfall"

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/waterfall/SampleData $(SHARE)/bash-completion/completions \
		$(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	install -m 755 "$$(swift build $(RELEASE) --show-bin-path)/waterfall" $(DESTDIR)$(PREFIX)/bin/waterfall
	install -m 644 SampleData/*.json SampleData/*.ndjson SampleData/README.md $(SHARE)/waterfall/SampleData/
	$(DESTDIR)$(PREFIX)/bin/waterfall --generate-completion-script bash > $(SHARE)/bash-completion/completions/waterfall
	$(DESTDIR)$(PREFIX)/bin/waterfall --generate-completion-script zsh > $(SHARE)/zsh/site-functions/_waterfall
	$(DESTDIR)$(PREFIX)/bin/waterfall --generate-completion-script fish > $(SHARE)/fish/vendor_completions.d/waterfall.fish
	@echo "installed $(DESTDIR)$(PREFIX)/bin/waterfall, its sample feeds and completions for bash, zsh and fish"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/waterfall $(SHARE)/bash-completion/completions/waterfall \
		$(SHARE)/zsh/site-functions/_waterfall $(SHARE)/fish/vendor_completions.d/waterfall.fish
	rm -rf $(SHARE)/waterfall
