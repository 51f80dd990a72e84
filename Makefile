# Build entry point for OpenBench and similar testing frameworks.
#
#   make EXE=<path>        builds an optimised binary for this machine at <path>
#   make EXE=<path> CARGO_FEATURES=spsa   the same with the search constants as UCI options
#
# OpenBench passes further variables (CC, CXX, EVALFILE, ...); they are accepted and ignored.
# This is the only build that uses `target-cpu=native`; `cargo build --release` stays portable.

EXE ?= lazuli
CARGO_FEATURES ?=
TARGET_DIR := target/openbench

.PHONY: all native clean

all: native

native:
	RUSTFLAGS="-C target-cpu=native" cargo build --release --package lazuli --bin lazuli --target-dir $(TARGET_DIR) $(if $(CARGO_FEATURES),--features $(CARGO_FEATURES),)
	cp $(TARGET_DIR)/release/lazuli $(EXE)

clean:
	rm -rf $(TARGET_DIR)
