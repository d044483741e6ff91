# SPDX-License-Identifier: GPL-2.0
#
# What the Makefiles of the host tests (tests/host, tests/userspace)
# share.  Included after their first rule (the default goal stays
# theirs), with HERE set to their directory.

TOP := $(abspath $(HERE)/../..)
CORE := $(TOP)/modules/core
KSFT ?= $(TOP)/build/ksrc

# Under AddressSanitizer and UndefinedBehaviorSanitizer.  The harness's
# TEST() wrappers take a "variant" argument they do not use:
# -Wno-unused-parameter keeps -Wextra usable with it.
HOST_TEST_CFLAGS := -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-fsanitize=address,undefined -fno-sanitize-recover=all

# Keep stdout to the TAP stream: no "Entering directory", no commands
# (V=1 shows them).
MAKEFLAGS += --no-print-directory
Q := $(if $(filter 1,$(V)),,@)

$(KSFT)/kselftest_harness.h $(KSFT)/kselftest.h:
	@echo "$@ is missing: run scripts/ksrc.sh or pass KSFT=<dir>" >&2
	@exit 1
