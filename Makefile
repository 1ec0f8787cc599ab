# make install / make uninstall: see scripts/install for the variables (PREFIX, UNITDIR, DESTDIR,
# SECRET_SERVICE_ACTIVATION).
.PHONY: build test install uninstall bench

build:
	scripts/install-deps build
	swift build -c release --static-swift-stdlib

test:
	scripts/test

install:
	scripts/install install

uninstall:
	scripts/install uninstall

bench:
	scripts/bench
