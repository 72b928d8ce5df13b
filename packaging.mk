# Release packages and their checks (included from Makefile). Each package target builds one
# archive into $(BUILD)/dist/ from the working tree; tools and downloads are cached outside the
# repository (~/.cache/edgechat). Cross builds take minutes, so none of this is part of
# `make test`: run `make package-check` on demand (see packaging/build.sh, packaging/check.sh).
PACKAGE_TARGETS := windows-arm64 windows-amd64 linux-amd64

.PHONY: icon package package-check $(addprefix package-,$(PACKAGE_TARGETS))

# Windows on Arm zip (zig 0.11 from npm cross-compiles the cgo parts).
package-windows-arm64:
	BUILD=$(BUILD) packaging/build.sh windows-arm64

# Windows x64 zip (Debian's mingw-w64 gcc).
package-windows-amd64:
	BUILD=$(BUILD) packaging/build.sh windows-amd64

# Linux x64 tar.xz.
package-linux-amd64:
	BUILD=$(BUILD) packaging/build.sh linux-amd64

# All packages, one build at a time.
package:
	@set -e; for t in $(PACKAGE_TARGETS); do BUILD=$(BUILD) packaging/build.sh $$t; done

# Builds every package, then checks them as a person would (file types, GUI subsystem,
# imports, resources, the Linux window under Xvfb).
package-check: package
	BUILD=$(BUILD) packaging/check.sh

# Redraws assets/icon.png (packaging/mkicon's test fails when it is stale).
icon:
	$(GO) run ./packaging/mkicon -o assets/icon.png
