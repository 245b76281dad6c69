# Talus: `make demo` runs the built-in demo scene, `make test` runs the test suite.
# Both install missing Debian packages when run as root; otherwise they print
# the apt-get line to run and stop.

BUILD    ?= build
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
PACKAGES := cmake make gcc pkg-config libfyaml-dev libassimp-dev libcairo2-dev libccd-dev gnuplot-nox python3 python3-vtk9 python3-numpy python3-cffi python3-pytest python3-matplotlib clang libopenmpi-dev openmpi-bin

# `pip install ./python` into a venv (docs/python.md): venv and its pip, setuptools, wheel
PACKAGES += python3-venv python3-setuptools python3-wheel

.PHONY: all demo test build deps asan clean bench bench-shapes

all: build

deps:
	@missing=""; \
	for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing missing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; \
	  else \
	    echo "Missing Debian packages:$$missing"; \
	    echo "Install them with:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/talus run

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Talus against LIGGGHTS and LAMMPS on the same settled bed (not part of `test`; long: see
# docs/bench.md). bench/run.sh installs the peers when run as root; SIZES, REPS, STEPS, ... pass
# through (make exports command-line variables), e.g. `make bench SIZES=10k REPS=1 STEPS=200`.
bench: build
	TALUS=$(BUILD)/talus bash bench/run.sh

# the non-spherical beds (ellipsoids, meshed grains) beside the spheres: bench/SHAPES.md
bench-shapes: build
	TALUS=$(BUILD)/talus bash bench/shapes.sh

# the test suite under AddressSanitizer and UndefinedBehaviorSanitizer
asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTALUS_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan
