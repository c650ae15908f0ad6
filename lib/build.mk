# What the Makefiles of progs/, tests/ and bench/ share, included after
# their first target: the tree's uapi headers and libbpf (make libbpf),
# not Debian 12's; the C flags of the guest's programs on them; the
# output folder $(OUT); clean.
UAPI ?= ../build/uapi/usr/include
LIBBPF ?= ../build/libbpf
TREE ?= ../build/linux
SKEL ?= ../build/progs
LIB := ../lib

# The tree's AF_XDP socket helpers (the selftests' xsk.c and xsk.h), last
# in the search path: xsk.c alone is built on the tree's tools headers.
# After them the tree's tools headers, for what TOOLS_FILTER_H includes
# as <uapi/linux/filter.h> (7.3's does; 6.12's includes only linux/bpf.h).
XSK_DIR := $(TREE)/tools/testing/selftests/bpf
CFLAGS := -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(SKEL) -I$(LIB) -I../progs \
	-I$(LIBBPF)/include -I$(UAPI) -DTOOLS_FILTER_H='"$(TREE)/tools/include/linux/filter.h"' \
	-idirafter $(XSK_DIR) -idirafter $(TREE)/tools/include
XSK_OBJ := $(OUT)/xsk.o
LDLIBS := $(LIBBPF)/lib/libbpf.a -lelf -lz
LIBSRCS := $(wildcard $(LIB)/*.c)
LIBHDRS := $(wildcard $(LIB)/*.h) $(wildcard $(SKEL)/*.skel.h)

$(OUT):
	mkdir -p $@

$(XSK_OBJ): $(XSK_DIR)/xsk.c $(XSK_DIR)/xsk.h $(LIBBPF)/lib/libbpf.a | $(OUT)
	gcc -D_GNU_SOURCE -O2 -g -I$(XSK_DIR) -I$(TREE)/tools/include -I$(LIBBPF)/include \
		-I$(UAPI) -c $< -o $@

# Made by the top Makefile's libbpf target (testbed/libbpf.sh).
$(LIBBPF)/lib/libbpf.a $(UAPI)/linux/bpf.h:
	@echo "error: no $@: run 'make libbpf'" >&2; exit 1

clean:
	rm -rf $(OUT)

.PHONY: all clean
